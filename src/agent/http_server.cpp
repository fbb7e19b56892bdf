// SPDX-License-Identifier: Apache-2.0
#include <utility>  // before Boost 1.74's asio headers, which use std::exchange without it

#include "agent/http_server.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "common/errors.h"

namespace nw::agent {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct HttpServer::State {
  asio::io_context& io;
  tcp::acceptor acceptor;
  ServerLimits limits;
  Handler handler;
  HttpStats stats;
  size_t sessions = 0;                // accepted and not finished, started or not
  std::set<beast::tcp_stream*> open;  // to close them on stop()
  bool stopping = false;
  std::shared_ptr<const WebSecurity> security;  // null: plain and open; read on the io thread only
  // bcrypt takes tens of milliseconds: it runs here, one at a time (as the toolkit serialises it),
  // so that a client guessing passwords does not hold up the scrapes of others.
  asio::thread_pool bcrypt{1};
  // rate_limit: a token bucket of `burst` requests refilled one per interval.
  double tokens = 0;
  std::chrono::steady_clock::time_point refilled{};

  State(asio::io_context& io_, const ServerLimits& l, Handler h)
      : io(io_), acceptor(io_), limits(l), handler(std::move(h)) {}
  ~State() { bcrypt.join(); }

  bool take_token() {
    if (!security || security->rate_limit.interval.count() <= 0) return true;
    const auto& rl = security->rate_limit;
    auto now = std::chrono::steady_clock::now();
    if (refilled == std::chrono::steady_clock::time_point{}) tokens = rl.burst;
    else
      tokens = std::min<double>(rl.burst, tokens + std::chrono::duration<double>(now - refilled) /
                                                       std::chrono::duration<double>(rl.interval));
    refilled = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }
};

namespace {

using State = HttpServer::State;

// Keeps the open-connection bookkeeping right however the session coroutine ends (including
// being destroyed unfinished with the io_context).
class Registration {
 public:
  Registration(std::shared_ptr<State> st, beast::tcp_stream* s) : st_(std::move(st)), s_(s) { st_->open.insert(s_); }
  // The connection moved into another layer (TLS): stop() must close it there.
  void track(beast::tcp_stream* s) {
    st_->open.erase(s_);
    s_ = s;
    st_->open.insert(s_);
  }
  ~Registration() {
    st_->open.erase(s_);
    --st_->sessions;
    st_->stats.connections_open = st_->sessions;
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

 private:
  std::shared_ptr<State> st_;
  beast::tcp_stream* s_;
};

// What to answer a request the parser refused; 0 when the connection just ended or failed.
unsigned status_for_read_error(const beast::error_code& ec) {
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) return 431;
  if (ec == http::error::body_limit) return 413;
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return 0;
  if (ec.category() == http::make_error_code(http::error::bad_method).category()) return 400;
  return 0;
}

template <class Stream>
asio::awaitable<void> send(std::shared_ptr<State> st, Stream& stream, const HttpReply& reply, unsigned version,
                           bool keep_alive, bool head, beast::error_code& ec) {
  auto fill = [&](auto& res) {
    res.set(http::field::server, "noisewatch");
    res.set(http::field::content_type, reply.content_type);
    if (st->security)
      for (const auto& [k, v] : st->security->headers) res.set(k, v);
    for (const auto& [k, v] : reply.headers) res.set(k, v);
    res.keep_alive(keep_alive);
    res.content_length(reply.body.size());
  };
  beast::get_lowest_layer(stream).expires_after(st->limits.timeout);
  if (head) {
    http::response<http::empty_body> res{http::status(reply.status), version};
    fill(res);
    co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
  } else {
    http::response<http::string_body> res{http::status(reply.status), version};
    fill(res);
    res.body() = reply.body;
    co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
  }
  if (ec == beast::error::timeout) ++st->stats.connections_timed_out;
  if (!ec) ++st->stats.responses[reply.status];
}

// How long a connection that is ending may take to say goodbye (drain, close_notify).
std::chrono::milliseconds brief_wait(const State& st) {
  return std::min<std::chrono::milliseconds>(st.limits.timeout, std::chrono::milliseconds(1000));
}

// After refusing a request the client may still be sending it (an oversized header, say).
// Closing with unread bytes makes the kernel send a reset, which can destroy the refusal before
// the client reads it; so stop sending, then read and discard for a short, bounded while.
template <class Stream>
asio::awaitable<void> drain(std::shared_ptr<State> st, Stream& stream) {
  beast::error_code ec;
  beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_send, ec);
  beast::get_lowest_layer(stream).expires_after(brief_wait(*st));
  std::vector<char> scratch(16384);
  size_t total = 0;
  while (!ec && total < 1024 * 1024) {
    total += co_await stream.async_read_some(asio::buffer(scratch), asio::redirect_error(asio::use_awaitable, ec));
  }
}

// Who may ask: nullopt when the request may go on, else the refusal. bcrypt runs on its own
// thread; a verdict remembered from an earlier request (every scrape after the first) does not.
asio::awaitable<std::optional<HttpReply>> refusal(std::shared_ptr<State> st, std::string authorization) {
  auto sec = st->security;  // this request's configuration, even if a reload lands meanwhile
  if (!st->take_token()) co_return text_reply(429, "too many requests (rate_limit of the web config)\n");
  if (!sec || !sec->authenticates()) co_return std::nullopt;
  std::optional<bool> ok = sec->auth->remembered(authorization);
  if (!ok) {
    auto auth = sec->auth;
    // A plain job and a timer as the signal back: Boost 1.74 corrupts memory when an awaitable
    // is co_spawned onto another thread and awaited here (seen as crashes at exit).
    struct Job {
      explicit Job(asio::io_context& io) : done(io, std::chrono::steady_clock::time_point::max()) {}
      asio::steady_timer done;
      bool ok = false;
    };
    auto job = std::make_shared<Job>(st->io);
    asio::post(st->bcrypt, [job, auth, authorization, io = st->io.get_executor()] {
      job->ok = auth->verify(authorization);
      asio::post(io, [job] { job->done.cancel(); });
    });
    beast::error_code ec;
    co_await job->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (st->stopping) co_return text_reply(503, "the agent is stopping\n");
    ok = job->ok;
  }
  if (*ok) co_return std::nullopt;
  auto r = text_reply(401, "unauthorized: give the user and password of the agent's web config (basic auth)\n");
  r.headers.push_back({"WWW-Authenticate", "Basic"});
  co_return r;
}

// Reads requests and answers them until the client is done, a deadline passes or the server stops.
template <class Stream>
asio::awaitable<void> serve_requests(std::shared_ptr<State> st, Stream& stream, beast::flat_buffer& buffer) {
  for (unsigned served = 0;; ++served) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(st->limits.header_limit);
    parser.body_limit(st->limits.body_limit);
    beast::error_code ec;
    // One deadline for the whole request: a client trickling bytes is cut off all the same.
    beast::get_lowest_layer(stream).expires_after(st->limits.timeout);
    co_await http::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (ec == beast::error::timeout) {
      // An idle keep-alive connection (Prometheus keeps one between scrapes) just ends; a client
      // that never finished its request is a slow client.
      if (served == 0 || parser.got_some()) ++st->stats.connections_timed_out;
      break;
    }
    if (ec) {
      if (unsigned status = status_for_read_error(ec); status && !st->stopping) {
        co_await send(st, stream, text_reply(status, fmt::format("bad request: {}\n", ec.message())), 11, false, false,
                      ec);
        if (!ec) co_await drain(st, stream);
      }
      break;
    }
    const auto& req = parser.get();
    std::optional<HttpReply> refused = co_await refusal(st, std::string(req[http::field::authorization]));
    HttpReply reply;
    if (refused) {
      reply = std::move(*refused);
    } else {
      try {
        reply = st->handler(std::string_view(req.method_string().data(), req.method_string().size()),
                            std::string_view(req.target().data(), req.target().size()));
      } catch (const std::exception& e) {
        reply = text_reply(500, fmt::format("internal error: {}\n", e.what()));
      }
    }
    bool keep_alive = req.keep_alive() && !st->stopping;
    co_await send(st, stream, reply, req.version(), keep_alive, req.method() == http::verb::head, ec);
    if (ec || !keep_alive) break;
  }
}

// The parser's limits bound a request; the buffer cap also bounds pipelined bytes kept around.
beast::flat_buffer request_buffer(const State& st) {
  return beast::flat_buffer(st.limits.header_limit + st.limits.body_limit + 4096);
}

asio::awaitable<void> plain_session(std::shared_ptr<State> st, tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  Registration reg(st, &stream);
  beast::flat_buffer buffer = request_buffer(*st);
  co_await serve_requests(st, stream, buffer);
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> tls_session(std::shared_ptr<State> st, tcp::socket socket) {
  auto tls = st->security->tls;  // this connection's context, even if a reload lands meanwhile
  beast::tcp_stream stream(std::move(socket));
  Registration reg(st, &stream);
  beast::flat_buffer buffer = request_buffer(*st);
  beast::error_code ec;
  // A client speaking plain HTTP to the HTTPS port is told so, as Go's servers tell it, instead
  // of seeing the connection drop.
  stream.expires_after(st->limits.timeout);
  bool hello = co_await beast::async_detect_ssl(stream, buffer, asio::redirect_error(asio::use_awaitable, ec));
  if (ec || !hello) {
    ++st->stats.tls_handshake_failures;
    if (!ec && !st->stopping) {
      co_await send(st, stream, text_reply(400, "client sent an HTTP request to an HTTPS server\n"), 10, false, false,
                    ec);
      if (!ec) co_await drain(st, stream);
    }
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), *tls);
  reg.track(&secure.next_layer());
  secure.next_layer().expires_after(st->limits.timeout);
  size_t used = co_await secure.async_handshake(asio::ssl::stream_base::server, buffer.data(),
                                                asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {  // a bad or missing client certificate, an old protocol, a scanner: this client only
    ++st->stats.tls_handshake_failures;
    co_return;
  }
  buffer.consume(used);
  co_await serve_requests(st, secure, buffer);
  // close_notify, waiting briefly for the client's.
  secure.next_layer().expires_after(brief_wait(*st));
  co_await secure.async_shutdown(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> accept_loop(std::shared_ptr<State> st) {
  asio::steady_timer backoff(st->io);
  while (st->acceptor.is_open()) {
    beast::error_code ec;
    tcp::socket socket = co_await st->acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (st->stopping || ec == asio::error::operation_aborted) co_return;
    if (ec) {  // out of file descriptors and the like: do not spin, try again shortly
      backoff.expires_after(std::chrono::milliseconds(100));
      co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    // Counted here, not when the session starts running: a burst of accepts must not overshoot.
    if (st->sessions >= st->limits.max_connections) {
      ++st->stats.connections_rejected;
      socket.close(ec);
      continue;
    }
    st->stats.connections_open = ++st->sessions;
    if (st->security && st->security->tls) asio::co_spawn(st->io, tls_session(st, std::move(socket)), asio::detached);
    else asio::co_spawn(st->io, plain_session(st, std::move(socket)), asio::detached);
  }
}

}  // namespace

HttpServer::HttpServer(asio::io_context& io, const ListenAddress& at, const ServerLimits& limits, Handler handler,
                       std::shared_ptr<const WebSecurity> security)
    : state_(std::make_shared<State>(io, limits, std::move(handler))) {
  state_->security = std::move(security);
  state_->stats.tls = tls();
  beast::error_code ec;
  tcp::endpoint ep(asio::ip::make_address(at.host, ec), at.port);
  if (ec) throw Error(fmt::format("--listen {}: not an IP address", format_listen_address(at)));
  auto& acc = state_->acceptor;
  auto fail = [&](const char* what) {
    throw Error(fmt::format("cannot {} {}: {}; choose another --listen ADDR:PORT", what, format_listen_address(at),
                            ec.message()));
  };
  acc.open(ep.protocol(), ec);
  if (ec) fail("open a socket for");
  acc.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) fail("set SO_REUSEADDR on");
  acc.bind(ep, ec);
  if (ec) fail("listen on");
  acc.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) fail("listen on");
}

HttpServer::~HttpServer() { stop(); }

ListenAddress HttpServer::local_address() const {
  beast::error_code ec;
  auto ep = state_->acceptor.local_endpoint(ec);
  return {ep.address().to_string(), ep.port()};
}

void HttpServer::start() { asio::co_spawn(state_->io, accept_loop(state_), asio::detached); }

void HttpServer::stop() {
  state_->stopping = true;
  // No password check may outlive the server's io_context (it signals back through it).
  state_->bcrypt.stop();
  state_->bcrypt.join();
  beast::error_code ec;
  state_->acceptor.close(ec);
  for (auto* s : state_->open) s->socket().close(ec);
}

HttpStats HttpServer::stats() const { return state_->stats; }

bool HttpServer::tls() const { return state_->security && state_->security->tls; }

void HttpServer::set_security(std::shared_ptr<const WebSecurity> security) {
  bool next_tls = security && security->tls;
  if (next_tls != tls())
    throw Error(fmt::format("{} would switch the agent from {} to {}: restart it for that",
                            security ? security->path : "the web config", tls() ? "HTTPS" : "HTTP",
                            next_tls ? "HTTPS" : "HTTP"));
  state_->security = std::move(security);
  state_->refilled = {};  // a new rate limit starts with a full bucket
}

}  // namespace nw::agent
