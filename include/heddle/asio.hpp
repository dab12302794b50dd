// heddle's Asio integration (docs/asio.md): an io_context whose handlers run
// as controlled steps, strands over it, and a steady_timer on virtual time.
//
//   heddle::asio::io_context ctx;
//   auto strand = asio::make_strand(ctx);            // heddle's strand (strand.hpp)
//   asio::post(strand, [&] { ... });
//   heddle::asio::steady_timer timer(ctx, 10ms);     // virtual time
//   timer.async_wait([&](asio::error_code ec) { ... });
//   asio::co_spawn(ctx, session(), asio::detached);  // asio::awaitable coroutines
//   ctx.run();
//
// Built on Debian's standalone Asio (libasio-dev, namespace ::asio, 1.22);
// Boost.Asio is not supported. Include this header, not the parts, and before
// any code that names asio::strand<heddle::asio::executor>. Not part of
// heddle/heddle.hpp: only tests that use Asio need Asio's headers.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/bind_executor.hpp>
#include <asio/co_spawn.hpp>
#include <asio/defer.hpp>
#include <asio/detached.hpp>
#include <asio/dispatch.hpp>
#include <asio/post.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include "heddle/asio/io_context.hpp"
#include "heddle/asio/steady_timer.hpp"
#include "heddle/asio/strand.hpp"
