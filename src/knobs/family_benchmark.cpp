// pin-cpu, sched-fifo, nice, clean-env, stop-process: knobs for one benchmark process (the `run`
// flags, or the standard tools) and the one knob that is by hand only.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "knobs/catalogue.h"
#include "knobs/families.h"
#include "knobs/render.h"

namespace nw::knobs::family {

Commands cmd_pin(const Context& c) {
  return {rerun(get("pin-cpu"), c), fmt::format("taskset -c {} {}", render::targets(c), c.command)};
}

Commands cmd_fifo(const Context& c) { return {rerun(get("sched-fifo"), c), render::priv(c, "chrt -f 1 " + c.command)}; }

Commands cmd_nice(const Context& c) { return {rerun(get("nice"), c), render::priv(c, "nice -n -20 " + c.command)}; }

Commands cmd_clean_env(const Context& c) {
  return {rerun(get("clean-env"), c), fmt::format("env -i PATH=\"$PATH\" HOME=\"$HOME\" LANG=C {}", c.command)};
}

Commands cmd_stop_process(const Context& c) {
  std::string comm = c.process.empty() ? "<process>" : shell_quote(c.process);
  Commands out;
  if (!c.pids.empty()) out.push_back(fmt::format("ps -o pid,unit,args -p {}   # which service is it?", fmt::join(c.pids, ",")));
  out.push_back(render::priv(c, fmt::format("systemctl stop <unit>   # or pause it: pkill -STOP -x {}", comm)));
  out.push_back(render::priv(c, fmt::format("pkill -CONT -x {}   # resume it after benchmarking", comm)));
  return out;
}

}  // namespace nw::knobs::family
