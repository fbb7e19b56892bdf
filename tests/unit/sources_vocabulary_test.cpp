// SPDX-License-Identifier: Apache-2.0
// The source vocabulary (src/sources/): names, descriptions, groups, kinds, stolen time, and that
// it covers every category docs/contracts.md lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "sources/kernel_names.h"
#include "sources/vocabulary.h"
#include "support/files.h"

namespace nw::sources {
namespace {

// The examples of docs/contracts.md "Source names", one per form.
const char* const kExamples[] = {"preemption:kworker/1:2",
                                 "contention:worker",
                                 "wakeup:idle",
                                 "irq:virtio1-req.0",
                                 "irq:local_timer",
                                 "softirq:TIMER",
                                 "nmi:nmi",
                                 "smt:cc1plus",
                                 "blocking",
                                 "steal",
                                 "frequency",
                                 "migration",
                                 "fault",
                                 "unexplained"};

TEST(SourcesVocabulary, ParseSplitsAtTheFirstColon) {
  EXPECT_EQ(parse("preemption:kworker/1:2"), (SourceId{"preemption", "kworker/1:2"}));
  EXPECT_EQ(parse("irq:virtio1-req.0"), (SourceId{"irq", "virtio1-req.0"}));
  EXPECT_EQ(parse("steal"), (SourceId{"steal", ""}));
  EXPECT_EQ(parse(""), (SourceId{"", ""}));
  EXPECT_EQ(parse(":x"), (SourceId{"", "x"}));
}

TEST(SourcesVocabulary, FormatIsParsesInverse) {
  for (const char* s : kExamples) {
    EXPECT_EQ(format(parse(s)), s);
    auto id = parse(s);
    EXPECT_EQ(parse(format(id)), id) << s;
  }
  EXPECT_EQ(format(kIrq, "eth0"), "irq:eth0");
  EXPECT_EQ(format(kSteal), "steal");
  EXPECT_EQ(format(SourceId{"fault", ""}), "fault");
  EXPECT_EQ(format(parse("x:")), "x");  // an empty name is no name
}

// The "Source names" table of docs/contracts.md, one line per row.
std::vector<std::string> contract_rows() {
  std::string doc = test::slurp(std::string(NW_SOURCE_DIR) + "/docs/contracts.md");
  auto start = doc.find("**Source names**");
  if (start == std::string::npos) return {};
  std::istringstream table(doc.substr(start, doc.find("\n\n", start) - start));
  std::vector<std::string> rows;
  for (std::string line; std::getline(table, line);)
    if (line.starts_with("| ")) rows.push_back(line);
  return rows;
}

// The names a row lists in its (last) parentheses: "(HI TIMER ...)", "(local_timer, reschedule, ...)".
std::set<std::string> listed_names(const std::string& row) {
  auto open = row.rfind('('), close = row.find(')', open);
  std::string list = row.substr(open + 1, close - open - 1);
  std::replace(list.begin(), list.end(), ',', ' ');
  std::istringstream words(list);
  std::set<std::string> out;
  for (std::string w; words >> w;) out.insert(w);
  return out;
}

// Every category of the contract's table is known here, and nothing here is missing there: a
// source added to one and not the other fails.
TEST(SourcesVocabulary, CoversTheContractsCategories) {
  std::set<std::string> listed;
  std::regex row(R"(^\| ([a-z_]+) \|)");
  std::smatch m;
  for (const auto& line : contract_rows())
    if (std::regex_search(line, m, row) && m[1] != "category") listed.insert(m[1]);
  ASSERT_GE(listed.size(), 13u) << "docs/contracts.md has no \"Source names\" table";
  auto known = known_categories();
  auto is_known = [&](std::string_view c) { return std::find(known.begin(), known.end(), c) != known.end(); };
  for (const auto& c : listed) EXPECT_TRUE(is_known(c)) << c << " is in docs/contracts.md but not in src/sources/";
  for (auto c : known_categories())
    EXPECT_TRUE(listed.count(std::string(c))) << c << " is in src/sources/ but not in docs/contracts.md";
  EXPECT_FALSE(is_known("unknown"));
}

TEST(SourcesVocabulary, EveryCategoryHasItsDescription) {
  const std::pair<const char*, const char*> expected[] = {
      {"preemption:kworker/1:2", "preemption by kworker/1:2"},
      {"contention:worker", "the benchmark's own threads competing for its CPUs (worker)"},
      {"wakeup:idle", "waking the CPU from idle states"},
      {"irq:virtio1-req.0", "IRQ time from virtio1-req.0"},
      {"irq:local_timer", "timer-tick time (irq:local_timer)"},
      {"softirq:NET_RX", "NET_RX softirq time"},
      {"nmi:nmi", "NMI time"},
      {"nmi:perf_event_nmi_handler", "NMI time from perf_event_nmi_handler"},
      {"smt:cc1plus", "cc1plus on the SMT sibling"},
      {"blocking", "the benchmark's own blocking (I/O, sleeps, waits outside it)"},
      {"steal", "hypervisor steal"},
      {"frequency", "time lost to a lower CPU frequency"},
      {"migration", "migrations between CPUs"},
      {"fault", "page faults"},
      {"unexplained", "sources the probes cannot see (unexplained)"},
      {"unknown:7", "unknown:7"},  // a newer probe's source: its own name, never a guess
  };
  for (const auto& [source, text] : expected) EXPECT_EQ(describe(source), text) << source;
  // Every known category has words of its own: none falls back on its raw name.
  for (auto c : known_categories()) EXPECT_NE(describe(format(c, "x")), format(c, "x")) << c;
}

TEST(SourcesVocabulary, NamedSourcesOfOneCategoryShareLeadAndTail) {
  auto a = description(parse("preemption:a")), b = description(parse("preemption:b"));
  EXPECT_EQ(a.lead, "preemption by ");
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.lead + a.tail, b.lead + b.tail);
  auto s = description(parse("softirq:TIMER"));
  EXPECT_EQ(s.lead + "NET_RX and " + s.name + s.tail, "NET_RX and TIMER softirq time");
  // Sources with a phrase of their own stand alone.
  EXPECT_TRUE(description(parse("irq:local_timer")).name.empty());
  EXPECT_TRUE(description(parse("steal")).name.empty());
}

TEST(SourcesVocabulary, GroupOfEveryCategory) {
  const std::pair<const char*, Group> expected[] = {
      {"preemption:stress-ng", Group::machine},
      {"contention:worker-3", Group::workload},
      {"wakeup:idle", Group::machine},
      {"irq:virtio1-req.0", Group::machine},
      {"softirq:TIMER", Group::machine},
      {"nmi:nmi", Group::machine},
      {"smt:cc1plus", Group::machine},
      {"blocking", Group::workload},
      {"steal", Group::machine},
      {"frequency", Group::machine},
      {"migration", Group::machine},
      {"fault", Group::workload},
      {"unexplained", Group::unexplained},
      {"unknown:7", Group::machine},
  };
  for (const auto& [source, group] : expected) EXPECT_EQ(group_of(parse(source), "bench"), group) << source;
  EXPECT_EQ(group_name(Group::machine), "machine");
  EXPECT_EQ(group_name(Group::workload), "workload");
  EXPECT_EQ(group_name(Group::unexplained), "unexplained");
}

// Records written before `contention` existed named the benchmark's own tasks preemption.
TEST(SourcesVocabulary, OlderRecordsOwnPreemptionIsContention) {
  EXPECT_TRUE(is_contention(parse("preemption:bench"), "bench"));
  EXPECT_EQ(group_of(parse("preemption:bench"), "bench"), Group::workload);
  EXPECT_FALSE(is_stolen(parse("preemption:bench"), "bench"));
  // Another task's preemption, or no command to compare with, is the machine's.
  EXPECT_FALSE(is_contention(parse("preemption:stress-ng"), "bench"));
  EXPECT_FALSE(is_contention(parse("preemption:bench"), ""));
  EXPECT_TRUE(is_stolen(parse("preemption:bench"), ""));
  EXPECT_TRUE(is_contention(parse("contention:anything"), "bench"));
  EXPECT_TRUE(is_contention(parse("contention:anything"), ""));
}

TEST(SourcesVocabulary, BenchmarkCommIsWhatTheKernelKeeps) {
  EXPECT_EQ(benchmark_comm({"./build/bench", "--size", "1M"}), "bench");
  EXPECT_EQ(benchmark_comm({"/usr/bin/a-very-long-benchmark-name"}), "a-very-long-ben");  // 15 characters
  EXPECT_EQ(benchmark_comm({"bench"}), "bench");
  EXPECT_EQ(benchmark_comm({}), "");
}

TEST(SourcesVocabulary, TimeOrCount) {
  // Migrations and faults are counted unless their entries carry time (faults, where timed).
  EXPECT_EQ(kind_of(parse("migration"), false), Kind::count);
  EXPECT_EQ(kind_of(parse("fault"), false), Kind::count);
  EXPECT_EQ(kind_of(parse("fault"), true), Kind::time);
  for (const char* s : kExamples) {
    if (std::string(s) == "migration" || std::string(s) == "fault") continue;
    EXPECT_EQ(kind_of(parse(s), true), Kind::time) << s;
    EXPECT_EQ(kind_of(parse(s), false), Kind::time) << s;
  }
}

TEST(SourcesVocabulary, StolenIsTheMachinesTime) {
  for (const char* s : {"preemption:stress-ng", "wakeup:idle", "irq:virtio1-req.0", "irq:local_timer", "softirq:TIMER",
                        "nmi:nmi", "steal", "frequency"})
    EXPECT_TRUE(is_stolen(parse(s), "bench")) << s;
  // smt is the machine's, but an overlap: the benchmark ran meanwhile.
  EXPECT_EQ(group_of(parse("smt:cc1plus"), "bench"), Group::machine);
  for (const char* s : {"contention:worker", "blocking", "fault", "unexplained", "smt:cc1plus"})
    EXPECT_FALSE(is_stolen(parse(s), "bench")) << s;
}

TEST(SourcesVocabulary, RunStolenTimeLeavesOutTheWorkloadsOwn) {
  RunSample r;
  r.noise = {{"preemption:stress", 1, 100, 100, nullptr}, {"irq:local_timer", 3, 20, 10, nullptr},
             {"blocking", 1, 1000, 1000, nullptr},        {"contention:worker", 5, 300, 90, nullptr},
             {"fault", 40, 7000, 300, nullptr},           {"preemption:bench", 2, 50, 30, nullptr}};
  EXPECT_EQ(r.stolen_ns("bench"), 120u);  // measured fault time is the benchmark's own kernel work
  EXPECT_EQ(r.stolen_ns(), 170u);         // without its comm, preemption:bench is someone else's
  // Older records: steal only in the run's field, counted once whether or not it is an entry too.
  r.steal_ns = 400;
  EXPECT_EQ(r.stolen_ns("bench"), 520u);
  r.noise.push_back({"steal", 1, 400, 400, nullptr});
  EXPECT_EQ(r.stolen_ns("bench"), 520u);
  EXPECT_EQ(r.all_noise().size(), r.noise.size());
}

// The vector and softirq names the contract lists are the ones the probe writes.
TEST(SourcesKernelNames, AreTheContracts) {
  std::set<std::string> vectors, softirqs;
  for (const auto& line : contract_rows()) {
    if (line.starts_with("| irq |")) vectors = listed_names(line);
    if (line.starts_with("| softirq |")) softirqs = listed_names(line);
  }
  std::set<std::string> ours;
  for (uint32_t v = 0; vector_name(v) != "vector"; ++v) ours.insert(std::string(vector_name(v)));
  EXPECT_EQ(ours, vectors);
  ours.clear();
  for (uint32_t v = 0; softirq_name(v) != "UNKNOWN"; ++v) ours.insert(std::string(softirq_name(v)));
  EXPECT_EQ(ours, softirqs);
}

TEST(SourcesKernelNames, SoftirqAndVectorNames) {
  EXPECT_EQ(softirq_name(0), "HI");
  EXPECT_EQ(softirq_name(1), "TIMER");
  EXPECT_EQ(softirq_name(9), "RCU");
  EXPECT_EQ(softirq_name(10), "UNKNOWN");
  EXPECT_EQ(vector_name(0), "local_timer");
  EXPECT_EQ(vector_name(3), "call_function_single");
  EXPECT_EQ(vector_name(11), "reboot");
  EXPECT_EQ(vector_name(12), "vector");
  ASSERT_EQ(apic_vector_names().size(), 12u);
  for (uint32_t v = 0; v < 12; ++v) EXPECT_EQ(apic_vector_names()[v], vector_name(v));
  EXPECT_EQ(softirq_names().size(), 10u);
  EXPECT_EQ(softirq_names().back(), "RCU");
}

}  // namespace
}  // namespace nw::sources
