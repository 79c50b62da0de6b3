#include "cli_common.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>

#include "snapml/error.h"
#include "snapml/threads.h"

namespace snapml::cli {

void parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // app.exit prints the help (--help) or the error with a pointer to --help.
    const int code = app.exit(e);
    throw Exit{code == 0 ? kExitOk : kExitUsage};
  }
}

int usable_threads(const std::string& program, int requested, bool quiet) {
  const int usable = clamp_threads(requested);
  if (usable != requested && !quiet)
    std::cerr << program << ": " << requested << " threads is more than this machine runs usefully; using "
              << usable << " (the limit: 4 per hardware thread, at least 64)\n";
  return usable;
}

namespace {

// The option's text as a finite double in [low, high] (low excluded when
// `low_open`): "" and `value` set, or the message.
std::string checked_number(const std::string& text, double low, double high, bool low_open,
                           const std::string& range, double& value) {
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
  if (!std::isfinite(value) || value < low || (low_open && value == low) || value > high)
    return text + " is not in " + range;
  return "";
}

}  // namespace

CLI::Validator number_in(double low, double high, bool low_open) {
  const std::string range = (low_open ? "(" : "[") + number_text(low) + ", " + number_text(high) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0.0;
        return checked_number(text, low, high, low_open, range, value);
      },
      "NUMBER in " + range);
}

CLI::Validator integer_in(long long low, long long high) {
  const std::string range = "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0.0;
        const std::string problem =
            checked_number(text, static_cast<double>(low), static_cast<double>(high), false, range, value);
        if (!problem.empty()) return problem;
        if (value != std::floor(value)) return text + " is not a whole number";
        text = std::to_string(static_cast<long long>(value));
        return "";
      },
      "INTEGER in " + range);
}

CLI::Validator unsigned_64_bit() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || end != text.data() + text.size() || error == std::errc::invalid_argument)
          return "'" + text + "' is not a whole number >= 0";
        if (error == std::errc::result_out_of_range) return text + " is not in [0, 18446744073709551615]";
        return "";
      },
      "INTEGER in [0, 2^64 - 1]");
}

CLI::Validator positive_number(double high) { return number_in(0.0, high, true); }
CLI::Validator non_negative_number(double high) { return number_in(0.0, high, false); }

int run_tool(const std::string& program, const std::function<int()>& body) {
  // Paths and values from the command line or the input reach messages: escaped
  // (printable, snapml/error.h) so that no control byte reaches the terminal.
  auto fail = [&](int code, const char* message) {
    std::cerr << program << ": " << printable(message) << "\n";
    return code;
  };
  // The most derived types first: InputError and IoError are snapml::Errors too.
  try {
    return body();
  } catch (const Exit& e) {
    return e.code;
  } catch (const InputError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const IoError& e) {
    return fail(kExitIo, e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    return fail(kExitIo, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitIo, "out of memory");
  } catch (const FitDiverged& e) {
    return fail(kExitDiverged, e.what());
  } catch (const InvalidArgument& e) {
    return fail(kExitUsage, e.what());
  } catch (const Unsupported& e) {
    return fail(kExitUsage, e.what());
  } catch (const CLI::Error& e) {
    return fail(kExitUsage, e.what());
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << printable(e.what()) << "\n";
    return kExitInternal;
  }
}

}  // namespace snapml::cli
