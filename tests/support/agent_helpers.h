// SPDX-License-Identifier: Apache-2.0
// What the agent's end-to-end tests share: the agent as a child process on a port the kernel
// picked, a free port for programs that cannot report theirs, and the samples of a page.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_helpers.h"

namespace nw::e2e {

using namespace std::chrono_literals;
using nw::test::slurp;

// A free loopback port for a program that cannot report the one it got (Prometheus).
inline uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Raw sockets, for what a well-behaved client library would never send.
inline int connect_raw(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Parses the samples of a text exposition: "name{labels}" -> value.
inline std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.rfind(' ');
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

// The agent as a child process, on a port the kernel picked (printed on stderr, http or https).
class Agent {
 public:
  explicit Agent(std::vector<std::string> extra = {}, std::string listen = "127.0.0.1:0") {
    out_ = temp_path("agent.out");
    err_ = temp_path("agent.err");
    std::vector<std::string> argv = {noisewatch(), "agent", "--listen", listen};
    argv.insert(argv.end(), extra.begin(), extra.end());
    pid_ = spawn(argv, out_, err_);
    std::regex listening(R"(listening on https?://[0-9.]+:(\d+)/)");
    // Loading the eBPF programs takes a moment on a busy machine.
    for (int i = 0; i < 300 && !port_; ++i) {
      std::smatch m;
      std::string err = slurp(err_);
      if (std::regex_search(err, m, listening)) port_ = uint16_t(std::stoi(m[1]));
      int status;
      if (!port_ && waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      if (!port_) std::this_thread::sleep_for(100ms);
    }
  }
  ~Agent() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove(out_);
    std::filesystem::remove(err_);
  }
  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string stderr_text() const { return slurp(err_); }

  // SIGTERM, then the exit status (-1 if it had to be killed after `limit`).
  int terminate(std::chrono::seconds limit = 10s) {
    kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(50ms);
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string out_, err_;
};

}  // namespace nw::e2e
