#include "discover/export_parse.h"

#include <iterator>
#include <set>
#include <string_view>

#include "support/input_limits.h"
#include "support/untrusted_text.h"

namespace hkim::discover {
namespace {

using Json = nlohmann::json;

// A pointer into the text that records in `*consumed` how far nlohmann's input adapter has
// read. The lexer reads one character at a time and looks ahead only after a number, so when
// the parser reports the start of an object or array, the last character read is its '{' or
// '['; after a key or a string, its closing quote.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* at, const char** consumed) : at_(at), consumed_(consumed) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    *consumed_ = ++at_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at_ == other.at_; }
  bool operator!=(const CountingIterator& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  const char** consumed_;
};

// Fields no check reads and that make up most of a real export (a node's image list, every
// object's managedFields): dropped while parsing, so a 2,000-node export stays small in memory.
// A Node's status.conditions are kept (NodeConditions): doctor shows the fabric condition; a few
// hundred bytes a node.
bool Dropped(const std::string& key) {
  static const std::set<std::string> kDropped = {"managedFields",   "images",
                                                 "conditions",      "volumesInUse",
                                                 "volumesAttached", "last-applied-configuration"};
  return kDropped.count(key) > 0;
}

// Builds the document as nlohmann's own DOM parser would, with three differences: dropped and
// too-deep values are never built, duplicate keys stop the parse, and the start of every
// element of a List's items is recorded. (nlohmann's callback parser cannot be used: after each
// object it scans its parent for discarded members, which is quadratic in a wide list.)
class ExportBuilder {
 public:
  ExportBuilder(const std::string& text, const char* const* consumed, std::size_t kept_floor)
      : text_(text), consumed_(consumed), budget_(kExportKeptBytesPerByte * text.size() + kept_floor) {}

  bool null() { return Value(Json(nullptr)); }
  bool boolean(bool value) { return Value(Json(value)); }
  bool number_integer(Json::number_integer_t value) { return Value(Json(value)); }
  bool number_unsigned(Json::number_unsigned_t value) { return Value(Json(value)); }
  bool number_float(Json::number_float_t value, const std::string&) { return Value(Json(value)); }
  bool string(std::string& value) { return Value(Json(std::move(value))); }
  bool binary(Json::binary_t&) { return Value(Json(nullptr)); }  // JSON text has none

  bool start_object(std::size_t) { return Open(Json::value_t::object); }
  bool start_array(std::size_t) { return Open(Json::value_t::array); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& key) {
    Frame& top = frames_.back();
    top.skip_next = top.value == nullptr || (Dropped(key) && !NodeConditions(key));
    top.next_is_items = top.list_parent >= -1 && key == "items";
    if (top.skip_next) return true;
    if (!Spend(kMemberBytes + HeapBytes(key.size()))) return false;
    if (top.value->contains(key)) {
      // The key's closing quote was the last character read; point at its opening one.
      std::size_t at = Consumed() == 0 ? 0 : Consumed() - 1;
      while (at > 0) {
        --at;
        if (text_[at] == '"' && (at == 0 || text_[at - 1] != '\\')) break;
      }
      Fail(at, "yaml.duplicate-key",
           "the key " + QuoteUntrusted(key) + " appears twice in one object of the export");
      return false;
    }
    top.slot = &(*top.value)[key];
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    if (e.id == 406) {  // out_of_range: a number no double holds (1e400)
      // The lexer read one character past the number, unless the text ended there.
      const std::size_t end = Consumed() - (Consumed() < text_.size() ? 1 : 0);
      std::size_t start = end;
      while (start > 0 && std::string_view("+-.0123456789eE").find(text_[start - 1]) !=
                              std::string_view::npos) {
        --start;
      }
      Fail(start, "yaml.number-range",
           "the number " + QuoteUntrusted(std::string_view(text_).substr(start, end - start), 40) +
               " is out of range: no double holds it");
      return false;
    }
    if (auto at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    // nlohmann quotes the last token whole: an unterminated string of 60 MB is its last token.
    Fail(position == 0 ? 0 : position - 1, "yaml.syntax",
         "the export is not valid JSON: " + UntrustedText(what, 300));
    return false;
  }

  Json& document() { return root_; }
  std::vector<ListItems>& lists() { return lists_; }
  const std::optional<ExportParseError>& error() const { return error_; }
  std::size_t root_offset() const { return root_offset_; }

 private:
  struct Frame {
    Json* value = nullptr;  // nullptr: not kept (dropped, too deep, or inside such a value)
    bool array = false;
    Json* slot = nullptr;   // objects: where the value after the current key goes
    bool skip_next = false;       // objects: the current key's value is not kept
    bool next_is_items = false;   // objects: the current key is "items" of a List candidate
    // Objects: -1 for the root, else the index in lists_ of the array holding this object;
    // -2 when this object is not an element of a List's items. Arrays: their index in lists_,
    // or -2.
    int list_parent = -2;
    std::size_t element = 0;      // arrays: elements so far
    std::size_t next_start = 0;   // List arrays: where the text after the last element starts
  };

  // Whether `key`, about to be read in the innermost object, is status.conditions of a Node
  // (whose kind was read before its status, as every export writes it).
  bool NodeConditions(const std::string& key) const {
    if (key != "conditions" || frames_.size() < 2) return false;
    const Frame& object = frames_[frames_.size() - 2];
    if (object.value == nullptr || object.array || !object.value->is_object()) return false;
    const auto kind = object.value->find("kind");
    const auto status = object.value->find("status");
    return kind != object.value->end() && *kind == "Node" && status != object.value->end() &&
           &*status == frames_.back().value;
  }

  // What the kept document costs in memory, estimated as it is built (libstdc++ on 64 bits: a
  // std::map node with its key, a std::string, a container, and the blocks malloc rounds them
  // to). Each value kept also costs its 16-byte slot in an array or a member.
  static constexpr std::size_t kMemberBytes = 96;
  static constexpr std::size_t kStringBytes = 48;
  static constexpr std::size_t kContainerBytes = 64;
  static std::size_t HeapBytes(std::size_t chars) {
    return chars > 15 ? (chars + 32) & ~std::size_t{15} : 0;
  }

  // An array's element also costs the part of its vector's capacity not yet used (doubling).
  std::size_t ArraySlack() const { return !frames_.empty() && frames_.back().array ? 16 : 0; }

  // A dense export (millions of tiny labels) would cost ten times its size as a document: it is
  // refused once the document passes the budget, at the value that passed it.
  bool Spend(std::size_t bytes) {
    kept_ += bytes + 16;
    if (kept_ <= budget_) return true;
    Fail(Consumed() == 0 ? 0 : Consumed() - 1, "limit.export-values",
         "the export holds more values than hkimgen keeps for its size (" + ByteSize(budget_) +
             " of values for " + ByteSize(text_.size()) + " of text); stopped here");
    return false;
  }

  std::size_t Consumed() const { return static_cast<std::size_t>(*consumed_ - text_.data()); }

  void Fail(std::size_t offset, std::string rule, std::string message) {
    if (!error_) error_ = ExportParseError{offset, std::move(rule), std::move(message)};
  }

  // Where the element about to be read starts when it is not a container: past the separators
  // after the previous one (a number's look-ahead may already have read some of them).
  std::size_t SkipSeparators(std::size_t at) const {
    bool comma = false;
    while (at < text_.size()) {
      const char c = text_[at];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++at;
      } else if (c == ',' && !comma) {
        comma = true;
        ++at;
      } else {
        break;
      }
    }
    return at;
  }

  // Where the value being read goes: nullptr when it is not kept.
  Json* Slot(Json::value_t type) {
    if (frames_.empty()) {
      root_ = Json(type);
      return &root_;
    }
    Frame& parent = frames_.back();
    if (parent.value == nullptr) return nullptr;
    if (parent.array) {
      parent.value->push_back(Json(type));
      return &parent.value->back();
    }
    if (parent.skip_next) return nullptr;
    *parent.slot = Json(type);
    return parent.slot;
  }

  void RecordElementStart(std::size_t start) {
    if (frames_.empty()) return;
    Frame& parent = frames_.back();
    if (parent.array && parent.list_parent >= 0) {
      lists_[parent.list_parent].offsets.push_back(start);
    }
  }

  void AfterElement() {
    if (frames_.empty()) return;
    Frame& parent = frames_.back();
    if (parent.array) {
      ++parent.element;
      parent.next_start = Consumed();
    }
  }

  bool Value(Json value) {
    if (!frames_.empty()) {
      Frame& parent = frames_.back();
      if (parent.array && parent.list_parent >= 0) {
        RecordElementStart(SkipSeparators(parent.next_start));
      }
    }
    const std::size_t slack = ArraySlack();
    if (Json* slot = Slot(value.type())) {
      const std::size_t bytes =
          value.is_string() ? kStringBytes + HeapBytes(value.get_ref<std::string&>().size()) : 0;
      if (!Spend(bytes + slack)) return false;
      *slot = std::move(value);
    }
    AfterElement();
    return true;
  }

  bool Open(Json::value_t type) {
    const std::size_t start = Consumed() - 1;  // the '{' or '['
    if (frames_.empty()) root_offset_ = start;
    RecordElementStart(start);
    Frame frame;
    frame.array = type == Json::value_t::array;
    if (frames_.size() >= limits::kMaxExportDepth) {
      // Too deep for any field a check reads: an array keeps the place (null) so that the
      // indexes of its other elements still match the text.
      Frame& parent = frames_.back();
      if (parent.value != nullptr && parent.array) parent.value->push_back(nullptr);
      frames_.push_back(frame);
      return true;
    }
    frame.value = Slot(type);
    if (frame.value != nullptr && !Spend(kContainerBytes + ArraySlack())) return false;
    if (frames_.empty()) {
      frame.list_parent = -1;
    } else if (frame.value != nullptr) {
      Frame& parent = frames_.back();
      if (frame.array && !parent.array && parent.next_is_items) {
        // The items of a List candidate (the root, or an element of another List's items).
        std::string pointer =
            parent.list_parent == -1
                ? std::string()
                : lists_[parent.list_parent].pointer + "/" +
                      std::to_string(frames_[frames_.size() - 2].element);
        lists_.push_back(ListItems{pointer + "/items", {}});
        frame.list_parent = static_cast<int>(lists_.size()) - 1;
        frame.next_start = start + 1;
      } else if (!frame.array && parent.array && parent.list_parent >= 0) {
        frame.list_parent = parent.list_parent;
      }
    }
    frames_.push_back(frame);
    return true;
  }

  bool Close() {
    frames_.pop_back();
    AfterElement();
    return true;
  }

  const std::string& text_;
  const char* const* consumed_;
  Json root_;
  std::vector<Frame> frames_;
  std::vector<ListItems> lists_;
  std::optional<ExportParseError> error_;
  std::size_t root_offset_ = 0;
  std::size_t budget_;
  std::size_t kept_ = 0;
};

}  // namespace

std::optional<ParsedExport> ParseJsonExport(const std::string& text, ExportParseError* error,
                                            std::size_t kept_floor) {
  const char* consumed = text.data();
  ExportBuilder builder(text, &consumed, kept_floor);
  CountingIterator first(text.data(), &consumed);
  CountingIterator last(text.data() + text.size(), &consumed);
  bool ok = false;
  try {
    ok = Json::sax_parse(first, last, &builder);
  } catch (const Json::exception& e) {  // the builder returns false; nothing else should throw
    *error = ExportParseError{0, "yaml.syntax", std::string("the export is not valid JSON: ") +
                                                    e.what()};
    return std::nullopt;
  }
  if (!ok || builder.error()) {
    *error = builder.error().value_or(
        ExportParseError{0, "yaml.syntax", "the export is not valid JSON"});
    return std::nullopt;
  }
  ParsedExport parsed;
  parsed.document = std::move(builder.document());
  parsed.lists = std::move(builder.lists());
  parsed.root_offset = builder.root_offset();
  return parsed;
}

}  // namespace hkim::discover
