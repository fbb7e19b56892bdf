// How vm-software-runs.json was recorded (not built by CMake; kept to make the data
// reproducible). Build against nwcore and run as root from the build directory:
//   g++ -std=c++20 -I../src -I.. record_counts.cpp libnwcore.a -lpfm -lfmt -o /tmp/record_counts
//   /tmp/record_counts ./counters_work > vm-software-runs.json
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "probes/counters.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  nw::probes::Counters counters;  // the default set
  nlohmann::json runs = nlohmann::json::array();
  for (int i = 0; i < 8; ++i) {
    int go[2];
    if (pipe(go) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
      char c;
      close(go[1]);
      if (read(go[0], &c, 1) != 1) _exit(126);
      execl(argv[1], argv[1], "100", "10", "2000", "1", "0", (char*)nullptr);
      _exit(127);
    }
    close(go[0]);
    counters.attach(pid);
    if (write(go[1], "g", 1) != 1) return 1;
    close(go[1]);
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    nlohmann::json c = nlohmann::json::object();
    for (const auto& [name, v] : counters.read_and_close())
      c[name] = {{"value", v.value}, {"raw", v.raw}, {"scaling", v.scaling}};
    runs.push_back({{"counters", c},
                    {"rusage_cpu_ns", (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                                          (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL},
                    {"rusage_switches", ru.ru_nvcsw + ru.ru_nivcsw},
                    {"rusage_minflt", ru.ru_minflt}});
  }
  nlohmann::json unavailable = nlohmann::json::array();
  for (const auto& u : counters.unavailable()) unavailable.push_back({{"probe", u.probe}, {"reason", u.reason}});
  nlohmann::json out = {{"command", {"counters_work", "100", "10", "2000", "1", "0"}},
                        {"runs", runs},
                        {"unavailable", unavailable}};
  std::puts(out.dump(1).c_str());
}
