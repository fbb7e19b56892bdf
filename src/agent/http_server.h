// SPDX-License-Identifier: Apache-2.0
// A small read-only HTTP/1.1 server on Boost.Beast for the agent's endpoints, hardened for a
// long-running service: bounded header and body sizes, bounded connection count, a deadline on
// every read and write (slow clients are cut off), and a stop() that closes everything. With a
// web config (web_security.h) it speaks TLS, asks for basic auth, adds the configured headers
// and limits the request rate, as exporters built on Prometheus' exporter-toolkit do.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "agent/agent_metrics.h"
#include "agent/listen_address.h"
#include "agent/routes.h"
#include "agent/web_security.h"

namespace boost::asio {
class io_context;
}

namespace nw::agent {

struct ServerLimits {
  size_t max_connections = 16;
  std::chrono::milliseconds timeout{10000};  // to receive a whole request, or to send a reply
  uint32_t header_limit = 8 * 1024;
  uint64_t body_limit = 1024;  // GET and HEAD carry none; anything bigger is refused with 413
};

class HttpServer {
 public:
  using Handler = std::function<HttpReply(std::string_view method, std::string_view target)>;

  // Binds and listens; throws nw::Error (address in use, not an address of this machine, ...).
  // `security` null: plain HTTP, no authentication.
  HttpServer(boost::asio::io_context& io, const ListenAddress& at, const ServerLimits& limits, Handler handler,
             std::shared_ptr<const WebSecurity> security = nullptr);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound address (the real port when asked for port 0).
  ListenAddress local_address() const;
  // Starts accepting on the io_context; the handler runs on the io_context's thread.
  void start();
  // Closes the listening socket and every open connection; io_context::run() then returns.
  void stop();
  HttpStats stats() const;
  // Does it speak TLS? Fixed at construction.
  bool tls() const;
  // A reloaded web config: connections accepted from now on use it, requests from now on are
  // checked against it. Throws nw::Error, keeping the current one, if it would switch between
  // HTTP and HTTPS (that needs a restart: clients would have to change scheme anyway).
  void set_security(std::shared_ptr<const WebSecurity> security);

  struct State;  // shared with the connection coroutines, which may outlive this object

 private:
  std::shared_ptr<State> state_;
};

}  // namespace nw::agent
