// SPDX-License-Identifier: Apache-2.0
#include "runner/bisect.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/durations.h"
#include "common/errors.h"
#include "common/subprocess.h"
#include "compare/live_decision.h"
#include "runner/live_compare.h"
#include "stats/descriptive.h"
#include "stats/sequential.h"

namespace nw::runner {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The endpoints' difference sets every step's midpoint: measured on at least this many pairs even
// when "different" is known sooner (13 pairs under a hog gave 2.2 % for a 3 % change).
constexpr size_t kEndpointPairs = 20;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string first_line(const std::string& s) {
  auto end = s.find('\n');
  return s.substr(0, end);
}

std::string last_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// git in the user's repository; its own one-line complaint when it fails.
std::string git(const std::string& repo, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", repo});
  Captured c = run_captured(args);
  if (c.status != 0) {
    std::string why = last_line(c.err);
    throw Error(fmt::format("git {}: {}", args[3], why.empty() ? fmt::format("exited with status {}", c.status) : why));
  }
  while (!c.out.empty() && c.out.back() == '\n') c.out.pop_back();
  return c.out;
}

std::string short_hash(const std::string& h) { return h.substr(0, 10); }

// The work trees of the commits the search needs, each built once, all removed at the end (unless
// kept): `git worktree add --detach`, never a checkout in the user's own tree.
class WorkTrees {
 public:
  WorkTrees(std::string repo, std::string dir, bool keep) : repo_(std::move(repo)), dir_(std::move(dir)), keep_(keep) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec)
      throw Error(
          fmt::format("cannot create the work tree directory {}: {} (give another with --cache)", dir_, ec.message()));
  }
  ~WorkTrees() {
    if (keep_) return;
    for (const auto& [commit, tree] : trees_)
      (void)run_captured({"git", "-C", repo_, "worktree", "remove", "--force", tree.dir});
    (void)run_captured({"git", "-C", repo_, "worktree", "prune"});
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  WorkTrees(const WorkTrees&) = delete;
  WorkTrees& operator=(const WorkTrees&) = delete;

  struct Tree {
    std::string dir;
    bool built = false;
    std::string why;  // the build's failure
    double seconds = 0;
  };
  // Checked out and built (once); `built` false says why.
  const Tree& get(const std::string& commit, const std::string& build) {
    if (auto it = trees_.find(commit); it != trees_.end()) return it->second;
    const auto start = Clock::now();
    Tree t;
    t.dir = dir_ + "/" + short_hash(commit);
    Captured add = run_captured({"git", "-C", repo_, "worktree", "add", "--detach", "--force", t.dir, commit});
    if (add.status != 0) {
      t.why = "git worktree add: " + last_line(add.err);
    } else if (!build.empty()) {
      Captured b = run_captured({"/bin/sh", "-c", build}, t.dir);
      t.built = b.status == 0;
      if (!t.built) t.why = fmt::format("the build exited with status {}: {}", b.status, last_line(b.err + b.out));
    } else {
      t.built = true;
    }
    t.seconds = seconds_since(start);
    return trees_[commit] = t;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string repo_, dir_;
  bool keep_;
  std::map<std::string, Tree> trees_;
};

std::string default_cache() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string base = xdg && *xdg ? xdg : home && *home ? std::string(home) + "/.cache" : "/tmp";
  return fmt::format("{}/noisewatch/bisect-{}", base, getpid());
}

struct Measured {
  LiveRun run;
  std::vector<compare::Pair> pairs;
  compare::SequentialDecision decision;
};

// A and B interleaved in their work trees, until `decided` (or the request's cap).
Measured measure(const BisectRequest& req, const std::string& dir_a, const std::string& dir_b,
                 std::function<bool(const std::vector<compare::Pair>&)> decided, uint64_t seed, size_t max_pairs,
                 size_t min_pairs = 0) {
  LiveRequest lr;
  lr.plan = req.plan;
  lr.plan.alternatives = {req.plan.command};
  lr.plan.workdirs = {dir_a, dir_b};
  lr.max_pairs = max_pairs;
  lr.min_pairs = std::min(min_pairs, max_pairs);
  lr.options.alpha = req.alpha;
  lr.options.threshold_percent = req.threshold_percent;
  lr.seed = seed;
  lr.decided = std::move(decided);
  lr.pair_time = compare::PairTime::undisturbed;
  Measured m{run_live(lr), {}, {}};
  m.pairs = compare::complete_pairs(m.run.record, lr.pair_time);
  m.decision = compare::decide_pairs(m.pairs, req.threshold_percent, req.alpha);
  return m;
}

void fill(BisectStep& s, const Measured& m) {
  s.pairs = m.decision.pairs;
  s.ratio = m.decision.ratio;
  s.low = m.decision.low;
  s.high = m.decision.high;
  if (m.pairs.size() >= 5) {
    auto top = find_obstacles(m.run.record, 1);
    if (!top.empty()) s.noise = fmt::format("{} ({:.0f} %)", top.front().source, top.front().share * 100);
  }
}

}  // namespace

BisectResult run_bisect(const BisectRequest& req, const BisectProgress& progress) {
  const auto start = Clock::now();
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  BisectResult r;
  if (run_captured({"git", "-C", req.repo, "rev-parse", "--git-dir"}).status != 0)
    throw Error(fmt::format("{} is not in a git repository: run bisect inside one, or give --repo DIR", req.repo));
  auto commit_of = [&](const std::string& rev, const char* option) {
    Captured c = run_captured({"git", "-C", req.repo, "rev-parse", "--verify", "--quiet", rev + "^{commit}"});
    if (c.status != 0) throw Error(fmt::format("{} {}: no such commit in {}", option, rev, req.repo));
    return first_line(c.out);
  };
  const std::string good = commit_of(req.good, "--good");
  const std::string bad = commit_of(req.bad, "--bad");
  if (run_captured({"git", "-C", req.repo, "merge-base", "--is-ancestor", good, bad}).status != 0)
    throw Error(fmt::format("--good {} is not an ancestor of --bad {}: give a good commit older than the bad one",
                            req.good, req.bad));
  std::vector<std::string> commits;
  std::string line;
  for (char ch : git(req.repo, {"rev-list", "--first-parent", "--reverse", good + ".." + bad}) + "\n") {
    if (ch != '\n') {
      line += ch;
    } else if (!line.empty()) {
      commits.push_back(line);
      line.clear();
    }
  }
  if (commits.empty()) throw Error(fmt::format("--good {} and --bad {} are the same commit", req.good, req.bad));
  r.commits = commits.size();
  auto subject = [&](const std::string& c) { return git(req.repo, {"log", "-1", "--format=%s", c}); };

  WorkTrees trees(req.repo, req.cache.empty() ? default_cache() : req.cache, req.keep);
  r.cache = trees.dir();
  say(fmt::format("{} commits after good {} up to bad {}; work trees in {}", commits.size(), short_hash(good),
                  short_hash(bad), trees.dir()));
  uint64_t seed = req.seed;
  auto next_seed = [&] { return seed ? seed++ : 0; };

  // The endpoints: built, then "different, bad slower", or there is nothing to bisect.
  BisectStep ends{bad, subject(bad), "endpoints"};
  const auto ends_start = Clock::now();
  const auto& g = trees.get(good, req.build);
  const auto& b = trees.get(bad, req.build);
  for (const auto* t : {&g, &b})
    if (!t->built) {
      r.outcome = "failed";
      r.message = fmt::format("the {} commit does not build: {}", t == &g ? "good" : "bad", t->why);
      r.seconds = seconds_since(start);
      return r;
    }
  // Twice a step's pairs: showing the endpoints the same (nothing to bisect) takes more than telling
  // a commit from the midpoint.
  Measured e = measure(req, g.dir, b.dir, {}, next_seed(), 2 * req.max_pairs, kEndpointPairs);
  fill(ends, e);
  ends.seconds = seconds_since(ends_start);
  ends.verdict = e.run.session_status ? "failed" : e.decision.outcome;
  r.steps.push_back(ends);
  if (e.run.session_status) {
    r.outcome = "failed";
    r.message = "the benchmark failed at an endpoint: " +
                last_line(e.run.record.warnings.empty() ? std::string() : e.run.record.warnings.back());
    r.seconds = seconds_since(start);
    return r;
  }
  say(fmt::format("endpoints: bad/good {:.4f} ({}), {}, {} pairs", e.decision.ratio,
                  compare::interval_text(e.decision.low, e.decision.high), e.decision.outcome, e.decision.pairs));
  if (e.decision.outcome != "different" || e.decision.low <= 1) {
    r.outcome = e.decision.outcome == "undecided" ? "undecided" : "no-regression";
    if (r.outcome == "undecided") r.obstacles = find_obstacles(e.run.record);
    r.message =
        e.decision.outcome == "same"
            ? fmt::format(
                  "bad is not slower than good: the same within ±{:g} % (bad/good {:.4f}); no commit to "
                  "blame",
                  req.threshold_percent, e.decision.ratio)
        : e.decision.outcome == "different"
            ? fmt::format("bad is faster than good (bad/good {:.4f}): swap --good and --bad to find the speed-up",
                          e.decision.ratio)
            : fmt::format("good and bad could not be told apart in {} pairs (bad/good {:.4f}): no commit to blame",
                          e.decision.pairs, e.decision.ratio);
    r.seconds = seconds_since(start);
    return r;
  }
  // A commit is bad when its median log(M/good) lies above half the endpoints' difference. Every
  // commit found bad is as slow as bad (one regression), so its pairs join the endpoints' in the
  // estimate of that difference: the endpoints' 20 pairs alone, in a noisy run, put the midpoint at
  // 1.072 where bad commits read 1.10-1.12 (a 14 % slowdown, diluted by exec), and left commits
  // after the culprit straddling it, skipped as noisy.
  std::vector<double> bad_logs;
  auto add_bad = [&](const std::vector<compare::Pair>& pairs) {
    for (const auto& p : pairs) bad_logs.push_back(std::log(p.b_ns / p.a_ns));
  };
  add_bad(e.pairs);
  double half = std::log(e.decision.ratio) / 2;

  // Binary search over (lo, hi): commits[lo] good (-1: the good endpoint), commits[hi] bad. A commit
  // that does not build, fails, or stays across the midpoint is skipped, as git bisect skips.
  // A noisy step is measured again once, when nothing else is left to test: noise comes in bursts,
  // and a second, later look is a fresh sample (a commit that does not build stays skipped).
  int lo = -1, hi = int(commits.size()) - 1;
  std::set<int> skipped, noisy_once, retried;
  for (int step = 1;; ++step) {
    std::vector<int> open;
    for (int i = lo + 1; i < hi; ++i)
      if (!skipped.count(i)) open.push_back(i);
    if (open.empty()) {
      for (int i = lo + 1; i < hi; ++i)
        if (skipped.count(i) && noisy_once.count(i) == 1 && !retried.count(i)) open.push_back(i);
      for (int i : open) skipped.erase(i), retried.insert(i);
    }
    if (open.empty()) break;
    const double middle = (lo + hi) / 2.0;
    int m = open.front();
    for (int i : open)
      if (std::fabs(i - middle) < std::fabs(m - middle)) m = i;
    const auto step_start = Clock::now();
    BisectStep s{commits[m], subject(commits[m]), "step"};
    const auto& t = trees.get(commits[m], req.build);
    if (!t.built) {
      s.verdict = "build failed";
      s.seconds = seconds_since(step_start);
      skipped.insert(m);
      r.steps.push_back(s);
      say(fmt::format("step {}: {} {}: build failed, skipped ({})", step, short_hash(s.commit), s.subject, t.why));
      continue;
    }
    Measured mm = measure(
        req, g.dir, t.dir,
        [&](const auto& pairs) {
          return compare::side_of(compare::decide_pairs(pairs, req.threshold_percent, req.alpha), half) !=
                 stats::Side::across;
        },
        next_seed(), req.max_pairs);
    fill(s, mm);
    s.seconds = seconds_since(step_start);
    const auto where = compare::side_of(mm.decision, half);
    s.verdict = mm.run.session_status         ? "failed"
                : where == stats::Side::above ? "bad"
                : where == stats::Side::below ? "good"
                                              : "noisy";
    r.steps.push_back(s);
    say(fmt::format("step {}: {} {}: {} (vs good {:.4f}, {}, {} pairs, {:.1f} s){}", step, short_hash(s.commit),
                    s.subject, s.verdict, s.ratio, compare::interval_text(s.low, s.high), s.pairs, s.seconds,
                    s.verdict == "noisy" ? ", skipped" : ""));
    if (s.verdict == "bad") {
      hi = m;
      add_bad(mm.pairs);
      half = stats::median(bad_logs) / 2;
    } else if (s.verdict == "good") lo = m;
    else skipped.insert(m), noisy_once.insert(m);
  }
  for (int i = lo + 1; i < hi; ++i)
    if (skipped.count(i)) r.candidates.push_back(commits[i]);
  if (!r.candidates.empty()) {
    r.candidates.push_back(commits[hi]);
    r.outcome = "undecided";
    r.message = fmt::format(
        "the first bad commit is one of {} (the others were skipped: they did not build, failed, "
        "or stayed undecided)",
        r.candidates.size());
    r.seconds = seconds_since(start);
    return r;
  }
  // Confirmed against its parent: the change it brought, with its interval.
  r.first_bad = commits[hi];
  r.first_bad_subject = subject(r.first_bad);
  r.parent = lo < 0 ? good : commits[lo];
  const auto confirm_start = Clock::now();
  BisectStep c{r.first_bad, r.first_bad_subject, "confirm"};
  Measured cm = measure(req, trees.get(r.parent, req.build).dir, trees.get(r.first_bad, req.build).dir, {}, next_seed(),
                        req.max_pairs);
  fill(c, cm);
  c.seconds = seconds_since(confirm_start);
  c.verdict = cm.run.session_status ? "failed" : cm.decision.outcome;
  r.steps.push_back(c);
  r.change = c;
  const bool confirmed = c.verdict == "different" && c.low > 1;
  r.outcome = confirmed ? "found" : "undecided";
  if (!confirmed) r.candidates = {r.first_bad};
  r.message = confirmed ? fmt::format("first bad commit {} \"{}\": {:.2f} % slower than its parent ({})",
                                      short_hash(r.first_bad), r.first_bad_subject, (c.ratio - 1) * 100,
                                      compare::interval_text(c.low, c.high))
                        : fmt::format(
                              "the search ended at {} \"{}\", but against its parent it is {} (B/A {:.4f}): "
                              "a step may have been wrong; rerun with more --max-runs",
                              short_hash(r.first_bad), r.first_bad_subject, c.verdict, c.ratio);
  r.seconds = seconds_since(start);
  return r;
}

int bisect_exit_status(const BisectResult& r) {
  if (r.outcome == "found") return 0;
  if (r.outcome == "no-regression") return 1;
  if (r.outcome == "undecided") return 2;
  return 3;
}

std::string render_bisect_text(const BisectResult& r) {
  std::string out = r.message + "\n";
  size_t tested = 0, skipped = 0;
  for (const auto& s : r.steps) {
    tested += s.role == "step";
    skipped += s.verdict == "build failed" || s.verdict == "noisy" || s.verdict == "failed";
  }
  out += fmt::format("{} commits between good and bad: {} tested ({} skipped), {:.1f} s.\n", r.commits, tested, skipped,
                     r.seconds);
  if (!r.candidates.empty()) {
    out += "Candidates:\n";
    for (const auto& c : r.candidates) out += "  " + c + "\n";
  }
  for (const auto& o : r.obstacles)
    out += fmt::format("{:.0f} % of the variance came from {} ({}){}\n", o.share * 100, o.source, o.sides,
                       o.fix.empty() ? "" : ": " + o.fix + " would remove it");
  if (r.steps.empty()) return out;
  out += fmt::format("\n  {:<9} {:<10} {:<12} {:>5} {:>8}  {:<15}  {:>7}  {}\n", "role", "commit", "verdict", "pairs",
                     "ratio", "interval", "time", "noise");
  for (const auto& s : r.steps)
    out += fmt::format("  {:<9} {:<10} {:<12} {:>5} {:>8.4f}  {:<15}  {:>6.1f}s  {}\n", s.role, short_hash(s.commit),
                       s.verdict, s.pairs, s.ratio, compare::interval_text(s.low, s.high), s.seconds, s.noise);
  out +=
      "  ratio: the commit against good (endpoints: bad against good; confirm: against its parent),\n"
      "  on the runs' undisturbed times (wall less what noise took)\n";
  return out;
}

nlohmann::json bisect_json(const BisectResult& r) {
  auto bound = [](double v) { return std::isfinite(v) && v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  auto step_json = [&](const BisectStep& s) {
    return nlohmann::json{{"commit", s.commit},
                          {"subject", s.subject},
                          {"role", s.role},
                          {"verdict", s.verdict},
                          {"pairs", s.pairs},
                          {"ratio", s.ratio},
                          {"ci", {bound(s.low), bound(s.high)}},
                          {"noise", s.noise},
                          {"seconds", s.seconds}};
  };
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps) steps.push_back(step_json(s));
  nlohmann::json obs = nlohmann::json::array();
  for (const auto& o : r.obstacles)
    obs.push_back({{"source", o.source}, {"share", o.share}, {"sides", o.sides}, {"fix", o.fix}});
  return {{"schema", "noisewatch.bisect/1"},
          {"outcome", r.outcome},
          {"message", r.message},
          {"first_bad", r.first_bad.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.first_bad)},
          {"first_bad_subject", r.first_bad_subject},
          {"parent", r.parent.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.parent)},
          {"change", r.change ? step_json(*r.change) : nlohmann::json(nullptr)},
          {"candidates", r.candidates},
          {"commits", r.commits},
          {"steps", steps},
          {"obstacles", obs},
          {"seconds", r.seconds},
          {"cache", r.cache}};
}

}  // namespace nw::runner
