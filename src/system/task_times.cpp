// SPDX-License-Identifier: Apache-2.0
#include "system/task_times.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <string>

namespace nw::sys {

namespace {

// A small /proc file into `buf` with open/read/close: no stream, no allocation (this runs for
// every task twice per repetition). Returns the bytes read, 0 when the task is gone.
size_t read_small(const char* path, char* buf, size_t size) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  return size_t(n);
}

// The numeric entries of a /proc directory.
template <class F>
void for_each_id(const char* dir, F&& f) {
  DIR* d = ::opendir(dir);
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    pid_t id = 0;
    const char* end = e->d_name + std::char_traits<char>::length(e->d_name);
    auto [p, ec] = std::from_chars(e->d_name, end, id);
    if (ec == std::errc() && p == end && id > 0) f(id);
  }
  ::closedir(d);
}

}  // namespace

std::vector<TaskTime> read_task_times() {
  std::vector<TaskTime> out;
  out.reserve(512);
  char dir[48], path[64], buf[128];
  auto add = [&](pid_t pid, pid_t tid, const char* schedstat) {
    if (!read_small(schedstat, buf, sizeof buf)) return;
    uint64_t ns = 0;
    if (std::from_chars(buf, buf + std::char_traits<char>::length(buf), ns).ec != std::errc()) return;
    out.push_back({pid, tid, ns});
  };
  for_each_id("/proc", [&](pid_t pid) {
    std::snprintf(dir, sizeof dir, "/proc/%d/task", pid);
    // The task directory's link count is 2 + its threads: most processes (kernel threads
    // included) have one, whose schedstat is the process's own; no directory to list.
    struct stat st;
    if (::stat(dir, &st) != 0) return;
    if (st.st_nlink == 3) {
      std::snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
      add(pid, pid, path);
      return;
    }
    for_each_id(dir, [&](pid_t tid) {
      std::snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", pid, tid);
      add(pid, tid, path);
    });
  });
  return out;
}

std::optional<TaskPlace> parse_task_place(std::string_view line) {
  auto open = line.find('(');
  auto close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  TaskPlace t;
  t.comm = std::string(line.substr(open + 1, close - open - 1));
  // After the comm: field 3 (state) onwards, space-separated; `processor` is field 39.
  std::string_view rest = line.substr(close + 1);
  int field = 2;
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\n') ++j;
    if (j == i) break;
    if (++field == 39) {
      int cpu = -1;
      if (std::from_chars(rest.data() + i, rest.data() + j, cpu).ec != std::errc()) return std::nullopt;
      t.cpu = cpu;
      return t;
    }
    i = j;
  }
  return std::nullopt;
}

std::optional<TaskPlace> read_task_place(pid_t pid, pid_t tid) {
  char path[64], buf[1024];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
  size_t n = read_small(path, buf, sizeof buf);
  if (!n) return std::nullopt;
  return parse_task_place(std::string_view(buf, n));
}

std::string read_process_comm(pid_t pid) {
  char path[64], buf[64];
  std::snprintf(path, sizeof path, "/proc/%d/comm", pid);
  size_t n = read_small(path, buf, sizeof buf);
  std::string s(buf, n);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace nw::sys
