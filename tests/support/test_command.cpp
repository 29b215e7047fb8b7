// winml_test_command: the stand-in for export commands and vendor compilers
// in CLI tests, the same program on every system (a shell one-liner is not:
// Windows has no sh). It runs its arguments as steps, in order:
//
//   pid FILE             writes this process's id into FILE (then renames it into place)
//   parent FILE          appends the id of the process that started it to FILE, a line
//   copy FROM TO         copies a file
//   head N FROM TO       copies the first N bytes of FROM
//   write FILE TEXT      writes TEXT into FILE
//   append FILE TEXT     appends TEXT and a newline to FILE
//   env FILE             writes the environment it was given into FILE, NAME=VALUE a line
//   sleep SECONDS        waits
//   wait FILE SECONDS    waits until FILE exists, at most SECONDS (exit 3 past that)
//   when FILE            the steps up to the matching `end` run only if FILE exists
//   unless FILE          ... only if it does not
//   end
//   print TEXT           TEXT and a newline on stdout; eprint: on stderr
//   exit CODE            ends with CODE
//   crash                dies of an access violation (SIGSEGV on POSIX)
//   script FILE ARG      runs the steps written in FILE, a step a line: its
//                        words separated by spaces (the text of print, eprint,
//                        write and append: the rest of the line), `$1` for
//                        ARG; a line starting with # is a comment
//
// Exit code 2 for a step it does not know.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/path_text.h"
#include "base/this_process.h"
#include "support/processes.h"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> g_args;

const std::string& arg(std::size_t& i) {
  if (i >= g_args.size()) {
    std::cerr << "winml_test_command: a step lacks an argument\n";
    std::exit(2);
  }
  return g_args[i++];
}

fs::path path_arg(std::size_t& i) { return winml::from_utf8(arg(i)); }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const fs::path& p, const std::string& text, bool append = false) {
  std::ofstream out(p, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  out << text;
}

// Skips the steps up to the `end` matching the `when`/`unless` just read.
void skip_block(std::size_t& i) {
  for (int depth = 1; i < g_args.size(); ++i) {
    if (g_args[i] == "when" || g_args[i] == "unless") ++depth;
    if (g_args[i] == "end" && --depth == 0) {
      ++i;
      return;
    }
  }
}

// The steps a `script` file holds, as arguments (see the top of the file).
std::vector<std::string> script_steps(const fs::path& file, const std::string& first_argument) {
  std::vector<std::string> steps;
  std::istringstream lines(read(file));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> step;
    for (std::string w; words >> w;) step.push_back(w == "$1" ? first_argument : w);
    const bool takes_text = step[0] == "print" || step[0] == "eprint" || step[0] == "write" || step[0] == "append";
    const std::size_t text_at = step[0] == "print" || step[0] == "eprint" ? 1 : 2;
    if (takes_text && step.size() > text_at + 1) {
      std::string text = step[text_at];
      for (std::size_t k = text_at + 1; k < step.size(); ++k) text += " " + step[k];
      step.resize(text_at);
      step.push_back(text);
    }
    steps.insert(steps.end(), step.begin(), step.end());
  }
  return steps;
}

[[noreturn]] void crash() {
  std::fflush(nullptr);
  // (volatile: the write must happen, as a real fault would.)
  volatile int* nowhere = nullptr;
  *nowhere = 1;
  std::abort();
}

}  // namespace

int main(int argc, char** argv) {
  winml::prepare_standard_streams();
  g_args = winml::utf8_arguments(argc, argv);
  std::size_t i = 1;
  while (i < g_args.size()) {
    const std::string step = arg(i);
    if (step == "pid") {
      const fs::path file = path_arg(i), temp = file.string() + ".part";
      write(temp, std::to_string(winml::current_process_id()));
      fs::rename(temp, file);
    } else if (step == "parent") {
      const fs::path file = path_arg(i);
      write(file, std::to_string(winml::test::parent_process(winml::current_process_id())) + "\n", true);
    } else if (step == "copy") {
      const fs::path from = path_arg(i), to = path_arg(i);
      write(to, read(from));
    } else if (step == "head") {
      const std::size_t n = std::stoul(arg(i));
      const fs::path from = path_arg(i), to = path_arg(i);
      write(to, read(from).substr(0, n));
    } else if (step == "write" || step == "append") {
      const fs::path file = path_arg(i);
      write(file, arg(i) + (step == "append" ? "\n" : ""), step == "append");
    } else if (step == "env") {
      const fs::path file = path_arg(i);
      std::string text;
      for (const auto& [name, value] : winml::environment_variables()) text += name + "=" + value + "\n";
      write(file, text);
    } else if (step == "sleep") {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::stod(arg(i))));
    } else if (step == "wait") {
      const fs::path file = path_arg(i);
      const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::stod(arg(i)));
      std::error_code ec;
      while (!fs::exists(file, ec)) {
        if (std::chrono::steady_clock::now() > until) return 3;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    } else if (step == "when" || step == "unless") {
      std::error_code ec;
      if (fs::exists(path_arg(i), ec) != (step == "when")) skip_block(i);
    } else if (step == "end") {
    } else if (step == "print") {
      std::cout << arg(i) << "\n";
    } else if (step == "eprint") {
      std::cerr << arg(i) << "\n";
    } else if (step == "exit") {
      std::fflush(nullptr);
      return std::stoi(arg(i));
    } else if (step == "crash") {
      crash();
    } else if (step == "script") {
      const fs::path file = path_arg(i);
      const std::vector<std::string> steps = script_steps(file, arg(i));
      g_args.insert(g_args.begin() + static_cast<std::ptrdiff_t>(i), steps.begin(), steps.end());
    } else {
      std::cerr << "winml_test_command: unknown step '" << step << "'\n";
      return 2;
    }
  }
  return 0;
}
