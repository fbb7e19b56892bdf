// A small read-only HTTP/1.1 server on Boost.Beast for the agent's endpoints, hardened for a
// long-running service: bounded header and body sizes, bounded connection count, a deadline on
// every read and write (slow clients are cut off), and a stop() that closes everything.
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
  HttpServer(boost::asio::io_context& io, const ListenAddress& at, const ServerLimits& limits, Handler handler);
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

  struct State;  // shared with the connection coroutines, which may outlive this object

 private:
  std::shared_ptr<State> state_;
};

}  // namespace nw::agent
