// SPDX-License-Identifier: Apache-2.0
#include "agent/check_worker.h"

#include <sys/resource.h>
#include <unistd.h>

#include "check/check_render.h"
#include "check/check_runner.h"
#include "common/errors.h"
#include "system/sysroot.h"

namespace nw::agent {

namespace {

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace

CheckWorker::CheckWorker(std::optional<std::vector<int>> cpus, std::chrono::milliseconds interval, int nice)
    : cpus_(std::move(cpus)), interval_(interval), nice_(nice) {}

CheckWorker::~CheckWorker() { stop(); }

void CheckWorker::run_once() { run_and_record(true); }

void CheckWorker::run_and_record(bool rethrow) {
  auto t0 = std::chrono::steady_clock::now();
  try {
    check::CheckOptions opts;
    opts.cpus = cpus_;
    opts.duration_s = 0;  // configuration only: no spinning measurement threads
    opts.attribute = false;
    sys::Sysroot live;
    auto report = std::make_shared<const check::CheckReport>(check::run_check(live, opts));
    std::string json = check::render_json(*report).dump(2) + "\n";
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard lock(mu_);
    state_.report = std::move(report);
    state_.runs++;
    state_.last_success_unix = unix_now();
    state_.last_duration_s = took;
    json_ = std::move(json);
  } catch (const std::exception& e) {
    {
      std::lock_guard lock(mu_);
      state_.runs++;
      state_.errors++;
      state_.last_error = e.what();
    }
    if (rethrow) throw;
  }
}

void CheckWorker::start() {
  thread_ = std::jthread([this](std::stop_token stop) {
    setpriority(PRIO_PROCESS, pid_t(gettid()), nice_);
    for (;;) {
      {
        std::unique_lock lock(mu_);
        if (wake_.wait_for(lock, stop, interval_, [] { return false; }) || stop.stop_requested()) return;
      }
      run_and_record(false);
    }
  });
}

void CheckWorker::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

CheckState CheckWorker::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

std::string CheckWorker::json() const {
  std::lock_guard lock(mu_);
  return json_;
}

}  // namespace nw::agent
