// SPDX-License-Identifier: Apache-2.0
#include "tests/accuracy/inject/irq_target.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "common/files.h"
#include "tests/accuracy/inject/injections.h"
#include "tests/accuracy/inject/proc_util.h"

namespace nw::inject {

namespace {

std::string g_affinity_path, g_affinity_saved;
volatile sig_atomic_t g_affinity_changed = 0;

int open_storm_file(const std::string& dir) {
  std::string path = dir + "/noisewatch-inject-XXXXXX";
  std::vector<char> tmpl(path.begin(), path.end());
  tmpl.push_back('\0');
  int fd0 = mkstemp(tmpl.data());
  if (fd0 < 0) die("cannot create a file in " + dir + ": " + std::strerror(errno));
  // Fill it once with buffered writes so the O_DIRECT overwrites are pure data I/O (no extent
  // conversion), then reopen with O_DIRECT and unlink: nothing is left behind.
  std::vector<char> chunk(1 << 20, 0x5a);
  for (int i = 0; i < 4; ++i)
    if (write(fd0, chunk.data(), chunk.size()) != ssize_t(chunk.size())) die("cannot fill the storm file in " + dir);
  fsync(fd0);
  int fd = open(tmpl.data(), O_RDWR | O_DIRECT);
  unlink(tmpl.data());
  close(fd0);
  if (fd < 0)
    die("O_DIRECT open failed in " + dir + ": " + std::strerror(errno) + " (use --dir on another filesystem)");
  return fd;
}

// Writes `cpu` to the IRQ's smp_affinity_list; 0 or the errno.
int steer(const std::string& path, int cpu) {
  std::string want = std::to_string(cpu) + "\n";
  int fd = open(path.c_str(), O_WRONLY);
  if (fd < 0) return errno;
  int err = write(fd, want.data(), want.size()) < 0 ? errno : 0;
  close(fd);
  return err;
}

}  // namespace

void restore_irq_affinity() {
  if (!g_affinity_changed) return;
  int fd = open(g_affinity_path.c_str(), O_WRONLY);
  if (fd >= 0) {
    ssize_t n = write(fd, g_affinity_saved.data(), g_affinity_saved.size());
    (void)n;
    close(fd);
  }
  g_affinity_changed = 0;
}

int prepare_irq_storm(const std::string& irq, int cpu, int io_cpu, const std::string& dir, nlohmann::json& setup) {
  auto table = sys::read_interrupts();
  const auto* line = find_irq(table, irq);
  if (!line) die("no IRQ named " + irq + " in /proc/interrupts (use --irq)");
  int number = line->irq;
  g_affinity_path = "/proc/irq/" + std::to_string(number) + "/smp_affinity_list";
  g_affinity_saved = read_file(g_affinity_path);
  std::string before = g_affinity_saved.substr(0, g_affinity_saved.find('\n'));
  setup["irq"] = irq;
  setup["irq_number"] = number;
  setup["irq_affinity_before"] = before;
  if (int err = steer(g_affinity_path, cpu); err == 0) {
    g_affinity_changed = 1;
    setup["irq_steered"] = true;
    std::fprintf(stderr, "noisewatch_inject: steered IRQ %d (%s) to CPU %d; it is restored to %s on exit\n", number,
                 irq.c_str(), cpu, before.c_str());
  } else {
    setup["irq_steered"] = false;
    setup["irq_steer_error"] = std::strerror(err);
    std::fprintf(stderr,
                 "noisewatch_inject: cannot steer IRQ %d (%s) to CPU %d: %s (this machine does not allow moving it); "
                 "relying on where it already lands\n",
                 number, irq.c_str(), cpu, std::strerror(err));
  }

  // Where does it land? Count the IRQ per CPU over a short burst of our own I/O.
  int fd = open_storm_file(dir);
  auto t0 = sys::read_interrupts();
  {
    auto probe = start_io_storm(fd, io_cpu, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    nlohmann::json ignored;
    probe->stop(ignored);
  }
  auto t1 = sys::read_interrupts();
  const auto *l0 = find_irq(t0, irq), *l1 = find_irq(t1, irq);
  std::vector<uint64_t> delta;
  uint64_t total = 0, on_target = 0;
  if (l0 && l1)
    for (int c : t1.cpus) {
      uint64_t d = t1.count(*l1, c) - t0.count(*l0, c);
      delta.push_back(d);
      total += d;
      if (c == cpu) on_target = d;
    }
  double frac = total ? double(on_target) / double(total) : 0.0;
  setup["irq_landing_probe"] = delta;
  setup["irq_fraction_on_target"] = frac;
  std::fprintf(stderr, "noisewatch_inject: %s landed %.0f %% on CPU %d during a 100 ms probe (%llu IRQs)\n",
               irq.c_str(), 100 * frac, cpu, (unsigned long long)total);
  if (frac < 0.9)
    std::fprintf(stderr, "noisewatch_inject: WARNING: %s does not land on CPU %d: the storm will miss the target\n",
                 irq.c_str(), cpu);
  return fd;
}

}  // namespace nw::inject
