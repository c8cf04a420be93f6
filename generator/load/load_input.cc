// The load stage's guards on raw input (load/load.h): file size, encoding, number range, and the
// quoting of user text in messages. They run before (or beside) yaml-cpp so that no bytes, however
// hostile, reach it or a diagnostic unchecked.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>

#include "support/input_limits.h"
#include "load/load.h"
#include "load/load_input.h"
#include "support/input_file.h"
#include "schema/profile_schema.h"
#include "support/untrusted_text.h"
#include "support/utf8.h"

namespace hkim {

namespace {

std::string Hex(unsigned value) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string text;
  for (int shift = 12; shift >= 0; shift -= 4) text += kDigits[(value >> shift) & 0xf];
  return text;
}

}  // namespace

bool LooksNumeric(const std::string& text) {
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') {
      return false;
    }
  }
  return digit;
}

// Both go through the one sanitiser (support/untrusted_text.h): control characters as visible
// escapes, long values cut with their length.
std::string ShortText(const std::string& text) { return "'" + UntrustedText(text, 40) + "'"; }

std::string PrintableText(const std::string& text) { return UntrustedText(text); }

std::string OutOfRangeFix(const std::string& json_pointer) {
  DiagnosticSink ignored;
  const ProfileSchema* schema = ProfileSchema::Embedded(ignored);
  const nlohmann::json* field = schema ? schema->SchemaFor(json_pointer) : nullptr;
  const nlohmann::json* minimum = SchemaKeyword(field, "minimum");
  const nlohmann::json* maximum = SchemaKeyword(field, "maximum");
  if (minimum && maximum) {
    return "use a value from " + minimum->dump() + " to " + maximum->dump() +
           " (the range this field allows)";
  }
  if (minimum) return "use a value of at least " + minimum->dump() + " (this field's minimum)";
  if (maximum) return "use a value of at most " + maximum->dump() + " (this field's maximum)";
  return "write an ordinary number (or quote the text if it is not a number)";
}

std::optional<EncodingError> FindEncodingError(const std::string& text) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const std::size_t length = DecodeUtf8(text, i, &code);
    if (length == 0) {
      return EncodingError{line, column,
                           "byte 0x" + Hex(static_cast<unsigned char>(text[i])).substr(2) +
                               " is not valid UTF-8"};
    }
    if (IsForbiddenCharacter(code)) {
      return EncodingError{line, column,
                           code == 0 ? std::string("a NUL byte (U+0000)")
                                     : "the control character U+" + Hex(code)};
    }
    if (code == '\n') {
      ++line;
      column = 1;
    } else {
      column += static_cast<int>(length);  // byte columns, as yaml-cpp counts
    }
    i += length;
  }
  return std::nullopt;
}


namespace {

// Up to `limit` bytes of `fd`, read in blocks: allocating (and zeroing) `limit` bytes up front
// cost a small render more than rendering it. `expected` (a regular file's size) sizes the
// buffer once; a pipe's grows by doubling but never past limit + 1.
bool ReadAtMost(int fd, std::size_t limit, std::size_t expected, std::string* text, int* error) {
  text->clear();
  text->reserve(std::min(limit, expected) + 1);
  char block[64 * 1024];
  while (text->size() < limit) {
    const ssize_t got = read(fd, block, std::min(sizeof block, limit - text->size()));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = errno;
      return false;
    }
    if (got == 0) break;
    if (text->size() + static_cast<std::size_t>(got) > text->capacity()) {
      text->reserve(std::min(limit, std::max(text->capacity() * 2, text->size() + got)));
    }
    text->append(block, static_cast<std::size_t>(got));
  }
  return true;
}

// Who read stdin (it can be read once): nobody yet, a profile (or values file), or an export.
// Guarded by stdin_mutex: a fleet loads its profiles on several threads.
enum class StdinUse { kNone, kProfile, kExport };
std::mutex stdin_mutex;
StdinUse stdin_use = StdinUse::kNone;
std::optional<std::string> stdin_text;
std::string stdin_reason;

// Reads stdin once, up to limit + 1 bytes (one past the limit, for the caller to refuse).
void ReadStdinOnce(std::size_t limit, StdinUse use) {
  if (stdin_use != StdinUse::kNone) return;
  stdin_use = use;
  struct stat info {};
  const bool file = fstat(STDIN_FILENO, &info) == 0 && S_ISREG(info.st_mode);
  if (use == StdinUse::kExport && file && static_cast<std::uintmax_t>(info.st_size) > limit) {
    // `< big-export.json`: refused before reading, like a named export. (A profile reads one
    // byte past its 1 MiB limit and the loader refuses it with its own rule.)
    stdin_reason = "stdin holds " + ByteSize(static_cast<std::size_t>(info.st_size)) +
                   ", more than the " + ByteSize(limit) + " an export may have";
    return;
  }
  std::string text;
  int error = 0;
  if (!ReadAtMost(STDIN_FILENO, limit + 1, file ? info.st_size : 0, &text, &error)) {
    stdin_reason = std::string("cannot read stdin: ") + std::strerror(error);
    return;
  }
  stdin_text = std::move(text);
}

const char* StdinUseName(StdinUse use) {
  return use == StdinUse::kExport ? "the cluster export" : "a profile or values file";
}

}  // namespace

std::optional<std::string> ReadInputText(const std::string& path, std::string* reason) {
  return ReadInputText(path, reason, limits::kMaxProfileBytes);
}

std::optional<std::string> ReadInputText(const std::string& path, std::string* reason,
                                         std::size_t limit) {
  if (path == "-") {
    // Several readers of "-" among the profile's layers see the same text; the first reader's
    // limit holds.
    const std::lock_guard<std::mutex> lock(stdin_mutex);
    if (stdin_use == StdinUse::kExport) {
      *reason = std::string("stdin is already read as ") + StdinUseName(stdin_use) +
                "; give one of them as a file";
      return std::nullopt;
    }
    ReadStdinOnce(limit, StdinUse::kProfile);
    if (!stdin_text) *reason = stdin_reason.empty() ? "cannot read stdin" : stdin_reason;
    return stdin_text;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    *reason = std::strerror(EISDIR);
    return std::nullopt;
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *reason = std::strerror(errno);
    return std::nullopt;
  }
  // One byte past the limit is enough for the loader to refuse it: a device or pipe that never
  // ends (/dev/zero) is not read forever.
  struct stat info {};
  const std::size_t size = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) ? info.st_size : 0;
  std::string text;
  int error = 0;
  const bool ok = ReadAtMost(fd, limit + 1, size, &text, &error);
  close(fd);
  if (!ok) {
    *reason = std::strerror(error != 0 ? error : EIO);
    return std::nullopt;
  }
  return text;
}

BoundedInput ReadBoundedInput(const std::string& path, std::size_t limit) {
  BoundedInput result;
  const std::string too_large = ", more than the " + ByteSize(limit) + " an export may have";
  if (path == "-") {
    const std::lock_guard<std::mutex> lock(stdin_mutex);
    // Stdin is one input: a second `-` (or a profile read from it) would read the same text
    // again as if it were another export.
    if (stdin_use != StdinUse::kNone) {
      result.stdin_taken = true;
      result.reason = std::string("stdin is already read as ") + StdinUseName(stdin_use);
      return result;
    }
    ReadStdinOnce(limit, StdinUse::kExport);
    if (!stdin_text) {
      result.reason = stdin_reason.empty() ? "cannot read stdin" : stdin_reason;
      result.too_large = stdin_reason.find("an export may have") != std::string::npos;
      return result;
    }
    if (stdin_text->size() > limit) {
      result.too_large = true;
      result.reason = "stdin holds more than " + ByteSize(limit);
      return result;
    }
    result.text = stdin_text;
    return result;
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    result.reason = std::strerror(errno);
    return result;
  }
  struct stat info {};
  if (fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    result.reason = std::strerror(S_ISDIR(info.st_mode) ? EISDIR : errno);
    close(fd);
    return result;
  }
  const bool file = S_ISREG(info.st_mode);
  if (file && static_cast<std::uintmax_t>(info.st_size) > limit) {
    result.too_large = true;
    result.reason = "the file holds " + ByteSize(static_cast<std::size_t>(info.st_size)) + too_large;
    close(fd);
    return result;
  }
  std::string text;
  int error = 0;
  const bool ok = ReadAtMost(fd, limit + 1, file ? info.st_size : 0, &text, &error);
  close(fd);
  if (!ok) {
    result.reason = std::strerror(error != 0 ? error : EIO);
    return result;
  }
  if (text.size() > limit) {
    result.too_large = true;
    result.reason = "it holds more than " + ByteSize(limit);
    return result;
  }
  result.text = std::move(text);
  return result;
}

}  // namespace hkim
