// SPDX-License-Identifier: Apache-2.0
#include "cli/docgen.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "common/shell_words.h"
#include "knobs/catalogue.h"

namespace nw::cli {

namespace {

// ---- reading the definitions -----------------------------------------------------------------

OptionDoc option_doc(const CLI::Option* o) {
  OptionDoc d;
  d.positional = o->get_positional() && o->get_lnames().empty() && o->get_snames().empty();
  if (d.positional) {
    d.names.push_back(o->get_name(true));
  } else {
    for (const auto& s : o->get_snames()) d.names.push_back("-" + s);
    for (const auto& l : o->get_lnames()) d.names.push_back("--" + l);
  }
  d.help = o->get_description();
  d.default_value = o->get_default_str();
  std::string type = o->get_type_name();
  bool flag = o->get_expected_max() == 0;  // add_flag sets expected(0)
  if (flag) return d;
  // "TEXT:{text,json}": the choices of an IsMember check; "INT:INT in [1 - 99]": a range.
  auto brace = type.find(":{");
  if (brace != std::string::npos && type.back() == '}') {
    std::string inside = type.substr(brace + 2, type.size() - brace - 3);
    std::stringstream in(inside);
    for (std::string c; std::getline(in, c, ',');) d.choices.push_back(c);
    d.kind = ValueKind::choices;
    d.value = type.substr(0, brace);
  } else {
    d.value = type.substr(0, type.find(':'));
    d.kind = d.value == "FILE"    ? ValueKind::file
             : d.value == "DIR"   ? ValueKind::dir
             : d.value == "KNOBS" ? ValueKind::knobs
                                  : ValueKind::free;
  }
  if (d.positional) d.value.clear();  // the name says it
  return d;
}

CommandDoc command_doc(const CLI::App* app, const std::string& path) {
  CommandDoc c;
  c.path = path;
  c.description = app->get_description();
  c.footer = app->get_footer();
  c.takes_command = app->get_prefix_command();
  for (const CLI::Option* o : app->get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    c.options.push_back(option_doc(o));
  }
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; }))
    c.subcommands.push_back(command_doc(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name()));
  return c;
}

// ---- roff --------------------------------------------------------------------------------------

// Text as roff reads it: backslashes and hyphens escaped (a hyphen in an option must stay a
// hyphen-minus when copied from the page), no line beginning with a control character.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char ch : text) {
    if (line_start && (ch == '.' || ch == '\'')) out += "\\&";
    if (ch == '\\') out += "\\e";
    else if (ch == '-') out += "\\-";
    else out += ch;
    line_start = ch == '\n';
  }
  return out;
}

// A description: paragraphs at blank lines; lines indented by two spaces (examples) kept as they
// are, the rest filled by the formatter.
std::string roff_paragraphs(const std::string& text) {
  std::string out;
  std::stringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  bool in_example = false;
  for (const auto& l : lines) {
    bool example = l.rfind("  ", 0) == 0;
    if (l.empty()) {
      if (in_example) out += ".fi\n.RE\n";
      in_example = false;
      out += ".PP\n";
      continue;
    }
    if (example && !in_example) {
      out += ".RS 2\n.nf\n";
      in_example = true;
    } else if (!example && in_example) {
      out += ".fi\n.RE\n";
      in_example = false;
    }
    out += roff(example ? l.substr(2) : l) + "\n";
  }
  if (in_example) out += ".fi\n.RE\n";
  return out;
}

std::string man_name(const std::string& path) {
  std::string n = "noisewatch";
  if (!path.empty()) n += "-" + path.substr(0, path.find(' '));
  return n;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string roff_options(const std::vector<OptionDoc>& options) {
  std::string out;
  for (const auto& o : options) {
    std::string tag;
    for (size_t i = 0; i < o.names.size(); ++i)
      tag += (i ? ", " : "") + std::string("\\fB") + roff(o.names[i]) + "\\fR";
    if (!o.value.empty()) tag += " \\fI" + roff(o.value) + "\\fR";
    out += ".TP\n" + tag + "\n";
    std::string help = o.help;
    if (!o.choices.empty()) {
      std::string list;
      for (const auto& c : o.choices) list += (list.empty() ? "" : ", ") + c;
      help += (help.empty() ? "" : " ") + std::string("One of: ") + list + ".";
    }
    if (!o.default_value.empty()) help += " (default: " + o.default_value + ")";
    out += roff(help.empty() ? "(no description)" : help) + "\n";
  }
  return out;
}

std::string synopsis(const CommandDoc& c) {
  std::string s = ".B noisewatch" + (c.path.empty() ? "" : " " + roff(c.path)) + "\n";
  if (!c.options.empty()) s += "[\\fIOPTIONS\\fR]";
  for (const auto& o : c.options)
    if (o.positional) s += " \\fI" + roff(o.names.front()) + "\\fR";
  if (!c.subcommands.empty()) s += " \\fICOMMAND\\fR";
  if (c.takes_command) s += " [\\-\\-] \\fIBENCHMARK\\fR [\\fIARGS\\fR...]";
  return s + "\n";
}

std::string page_header(const std::string& name, const std::string& version, const std::string& date,
                        const std::string& what) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return char(std::toupper(ch)); });
  // Left-aligned and unhyphenated: option names and paths must not be split at a line's end.
  return fmt::format(".TH {} 1 \"{}\" \"noisewatch {}\" \"User Commands\"\n.nh\n.ad l\n.SH NAME\n{} \\- {}\n",
                     roff(upper), date, version, roff(name), roff(what));
}

std::string see_also(const CommandDoc& top, const std::string& self) {
  std::vector<std::string> refs;
  if (self != "noisewatch") refs.push_back("noisewatch");
  for (const auto& s : top.subcommands)
    if (man_name(s.path) != self) refs.push_back(man_name(s.path));
  std::string out = ".SH SEE ALSO\n";
  for (size_t i = 0; i < refs.size(); ++i)
    out += ".BR " + roff(refs[i]) + " (1)" + (i + 1 < refs.size() ? "," : "") + "\n";
  out += ".PP\nThe guides, in /usr/share/doc/noisewatch: README.md, guide.md, agent.md, contracts.md.\n";
  return out;
}

std::string command_page(const CommandDoc& top, const CommandDoc& c, const std::string& version,
                         const std::string& date) {
  std::string name = man_name(c.path);
  std::string out = page_header(name, version, date, first_line(c.description));
  out += ".SH SYNOPSIS\n" + synopsis(c);
  for (const auto& s : c.subcommands) out += ".br\n" + synopsis(s);
  out += ".SH DESCRIPTION\n" + roff_paragraphs(c.description);
  if (!c.footer.empty()) out += ".PP\n" + roff_paragraphs(c.footer);
  out += ".SH OPTIONS\n" + roff_options(c.options);
  for (const auto& s : c.subcommands) {
    out += ".SH " + roff(fmt::format("NOISEWATCH {}", s.path)) + "\n";
    out += roff_paragraphs(s.description);
    if (!s.footer.empty()) out += ".PP\n" + roff_paragraphs(s.footer);
    out += roff_options(s.options);
  }
  out += see_also(top, name);
  return out;
}

std::string top_page(const CommandDoc& top, const std::string& version, const std::string& date) {
  std::string out = page_header("noisewatch", version, date, "explains why a benchmark's timings vary");
  out += ".SH SYNOPSIS\n.B noisewatch\n[\\fIOPTIONS\\fR] [\\-\\-] \\fIBENCHMARK\\fR [\\fIARGS\\fR...]\n";
  out += ".br\n.B noisewatch\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out += ".SH DESCRIPTION\n" + roff_paragraphs(top.description);
  out += ".PP\nWithout a command, the arguments are those of \\fBnoisewatch run\\fR.\n";
  out += ".SH COMMANDS\n";
  for (const auto& s : top.subcommands) {
    std::string what = first_line(s.description);
    if (!what.empty() && what.back() != '.' && what.back() != '?') what += ".";
    out += ".TP\n\\fB" + roff(s.path) + "\\fR\n" + roff(what) + " See \\fB" + roff(man_name(s.path)) + "\\fR(1).\n";
  }
  out += ".SH OPTIONS\n" + roff_options(top.options);
  out +=
      ".SH EXIT STATUS\n"
      "125 when noisewatch itself fails (a bad option, a bad input file, a missing privilege): one line on stderr "
      "says what to do. 126 and 127 when the benchmark cannot be run. Otherwise each command's own status, as its "
      "page says; \\fBrun\\fR exits with the benchmark's.\n";
  out += see_also(top, "noisewatch");
  return out;
}

// ---- completions -------------------------------------------------------------------------------

void walk(const CommandDoc& c, std::vector<const CommandDoc*>& out) {
  out.push_back(&c);
  for (const auto& s : c.subcommands) walk(s, out);
}

std::string words(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& s : w) out += (out.empty() ? "" : " ") + s;
  return out;
}

std::vector<std::string> option_names(const CommandDoc& c) {
  std::vector<std::string> out;
  for (const auto& o : c.options)
    if (!o.positional) out.insert(out.end(), o.names.begin(), o.names.end());
  return out;
}

// A command's own word: "apply" of "tune apply".
std::string last_word(const std::string& path) { return path.substr(path.rfind(' ') + 1); }

// The zsh function completing a command: _noisewatch, _noisewatch_tune_apply.
std::string zsh_function(const std::string& path) {
  std::string fn = "_noisewatch" + (path.empty() ? "" : "_" + path);
  std::replace(fn.begin(), fn.end(), ' ', '_');
  return fn;
}

std::vector<std::string> sub_names(const CommandDoc& c) {
  std::vector<std::string> out;
  for (const auto& s : c.subcommands) out.push_back(last_word(s.path));
  return out;
}

// A short description for a completion menu: the first clause, without the characters zsh's
// _arguments gives a meaning to.
std::string menu_text(const std::string& help) {
  std::string s = first_line(help);
  for (const char* stop : {"; ", ". ", " ("})
    if (auto p = s.find(stop); p != std::string::npos) s = s.substr(0, p);
  if (s.size() > 70) s = s.substr(0, 67) + "...";
  std::string out;
  for (char ch : s) {
    if (ch == '[' || ch == ']') out += '\\';
    if (ch == ':') {
      out += "\\:";
      continue;
    }
    out += ch;
  }
  return out;
}

}  // namespace

CommandDoc describe(const CLI::App& app) { return command_doc(&app, ""); }

std::vector<std::string> knob_ids() {
  std::vector<std::string> out;
  for (const knobs::Knob* k : knobs::runtime_knobs()) out.emplace_back(k->id);
  return out;
}

std::map<std::string, std::string> man_pages(const CommandDoc& top, const std::string& version,
                                             const std::string& date) {
  std::map<std::string, std::string> pages;
  pages["noisewatch.1"] = top_page(top, version, date);
  for (const auto& s : top.subcommands) pages[man_name(s.path) + ".1"] = command_page(top, s, version, date);
  return pages;
}

std::string bash_completion(const CommandDoc& top) {
  std::vector<const CommandDoc*> all;
  walk(top, all);
  std::string out =
      "# bash completion for noisewatch. Generated from its option definitions by nw_docgen\n"
      "# (src/cli/docgen.cpp), like its --help and man pages: do not edit.\n"
      "_noisewatch_list() {  # a comma-separated list of words: complete the part after the last comma\n"
      "  local pre=\"\" word=$cur\n"
      "  if [[ $cur == *,* ]]; then pre=${cur%,*},; word=${cur##*,}; fi\n"
      "  COMPREPLY=($(compgen -P \"$pre\" -W \"$1\" -- \"$word\"))\n"
      "}\n"
      "_noisewatch() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=\"\" w i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=${COMP_WORDS[i]}\n"
      "    if [[ $w == -- ]]; then  # the benchmark's command line\n"
      "      if ((i == COMP_CWORD - 1)); then COMPREPLY=($(compgen -c -- \"$cur\")); else COMPREPLY=($(compgen -f -- "
      "\"$cur\")); fi\n"
      "      return\n"
      "    fi\n"
      "    case \"$cmd/$w\" in\n";
  for (const CommandDoc* c : all)
    for (const auto& s : c->subcommands) {
      std::string word = last_word(s.path);
      out += fmt::format("      {}) cmd={} ;;\n", single_quoted(c->path + "/" + word), single_quoted(s.path));
    }
  out += "    esac\n  done\n  case \"$cmd/$prev\" in\n";
  for (const CommandDoc* c : all)
    for (const auto& o : c->options) {
      if (o.positional || o.kind == ValueKind::none) continue;
      std::string action;
      switch (o.kind) {
        case ValueKind::file:
          action = "COMPREPLY=($(compgen -f -- \"$cur\"))";
          break;
        case ValueKind::dir:
          action = "COMPREPLY=($(compgen -d -- \"$cur\"))";
          break;
        case ValueKind::knobs:
          action = "_noisewatch_list " + single_quoted(words(knob_ids()));
          break;
        case ValueKind::choices:
          action = "COMPREPLY=($(compgen -W " + single_quoted(words(o.choices)) + " -- \"$cur\"))";
          break;
        default:
          action = "COMPREPLY=()";
          break;  // a number, a CPU list: nothing to offer
      }
      std::string labels;
      for (const auto& n : o.names) labels += (labels.empty() ? "" : "|") + single_quoted(c->path + "/" + n);
      out += fmt::format("    {}) {}; return ;;\n", labels, action);
    }
  out += "  esac\n  if [[ $cur == -* ]]; then\n    case \"$cmd\" in\n";
  for (const CommandDoc* c : all)
    out += fmt::format("      {}) COMPREPLY=($(compgen -W {} -- \"$cur\")) ;;\n", single_quoted(c->path),
                       single_quoted(words(option_names(*c))));
  out += "    esac\n    return\n  fi\n  case \"$cmd\" in\n";
  for (const CommandDoc* c : all) {
    std::string action;
    if (!c->subcommands.empty())
      action = "COMPREPLY=($(compgen -W " + single_quoted(words(sub_names(*c))) + " -- \"$cur\"))";
    else if (c->takes_command) action = "COMPREPLY=($(compgen -c -- \"$cur\"))";  // the benchmark may follow without --
    else if (std::any_of(c->options.begin(), c->options.end(), [](const OptionDoc& o) { return o.positional; }))
      action = "COMPREPLY=($(compgen -f -- \"$cur\"))";
    else action = "COMPREPLY=()";
    out += fmt::format("    {}) {} ;;\n", single_quoted(c->path), action);
  }
  out += "  esac\n}\ncomplete -F _noisewatch noisewatch\n";
  return out;
}

std::string zsh_completion(const CommandDoc& top) {
  std::vector<const CommandDoc*> all;
  walk(top, all);
  auto spec = [](const OptionDoc& o) {
    std::string action;
    switch (o.kind) {
      case ValueKind::file:
        action = ":file:_files";
        break;
      case ValueKind::dir:
        action = ":directory:_files -/";
        break;
      case ValueKind::knobs:
        action = ":knob ids:_sequence compadd - " + words(knob_ids());
        break;
      case ValueKind::choices:
        action = ":" + o.value + ":(" + words(o.choices) + ")";
        break;
      case ValueKind::free:
        action = ":" + (o.value.empty() ? std::string("value") : o.value) + ": ";
        break;
      case ValueKind::none:
        break;
    }
    std::string text = "[" + menu_text(o.help) + "]" + action;
    if (o.names.size() == 1) return single_quoted(o.names[0] + text);
    std::string excl = "(" + words(o.names) + ")", braces;
    for (const auto& n : o.names) braces += (braces.empty() ? "" : ",") + n;
    return single_quoted(excl) + "{" + braces + "}" + single_quoted(text);
  };
  std::string out =
      "#compdef noisewatch\n"
      "# zsh completion for noisewatch. Generated from its option definitions by nw_docgen\n"
      "# (src/cli/docgen.cpp), like its --help and man pages: do not edit.\n";
  // One function per command; a command with subcommands dispatches on the next word.
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const CommandDoc* c = *it;
    out += zsh_function(c->path) +
           "() {\n  local curcontext=$curcontext state line\n  typeset -A opt_args\n  _arguments -C -s \\\n";
    for (const auto& o : c->options)
      if (!o.positional) out += "    " + spec(o) + " \\\n";
    size_t pos = 0;
    for (const auto& o : c->options)
      if (o.positional) out += fmt::format("    '{}:{}:_files' \\\n", ++pos, menu_text(o.help));
    if (!c->subcommands.empty()) out += "    '1:command:->command' '*::arg:->args'\n";
    else if (c->takes_command) out += "    '*::benchmark:_normal'\n";
    else out += "    '*: :'\n";
    if (!c->subcommands.empty()) {
      out += "  case $state in\n    command)\n      local -a commands=(\n";
      for (const auto& s : c->subcommands) {
        std::string word = last_word(s.path);
        out += "        " + single_quoted(word + ":" + menu_text(s.description)) + "\n";
      }
      out += "      )\n      _describe command commands ;;\n    args)\n      case $line[1] in\n";
      for (const auto& s : c->subcommands) {
        std::string word = last_word(s.path);
        out += fmt::format("        {}) {} ;;\n", word, zsh_function(s.path));
      }
      out += "      esac ;;\n  esac\n";
    }
    out += "}\n";
  }
  out += "_noisewatch \"$@\"\n";
  return out;
}

}  // namespace nw::cli
