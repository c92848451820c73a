// The channel on which a candidate's process of `gpumeter evaluate` reports to its parent (B11,
// issue 50). The key and the descriptor live here, in compiled memory: the parent passes them in
// one environment variable that is erased as it is read, so no Python object of the child ever
// holds the key. Every frame is MAC'd (HMAC-SHA256) and numbered, so bytes a candidate writes on
// the descriptor, a frame it removes or repeats, are seen by the parent. A report is sent once,
// and only when the Python stack that asks for it is gpumeter's own code down to the frames that
// were below it when the channel was sealed (before the candidate was imported); a measurement
// or a record started from any other stack is a violation, sent at once and carried by the report.
#include <fcntl.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>  // PyFrameObject's fields: PyFrame_GetGlobals is 3.11's
#endif

#include "binding.hpp"

namespace gpumeter::python {

// --- SHA-256 (FIPS 180-4) and HMAC (RFC 2104): no dependency for 150 lines ------------------

namespace {

constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

class Sha256 {
 public:
  void update(std::string_view data) {
    for (const char c : data) {
      block_[used_++] = static_cast<std::uint8_t>(c);
      if (used_ == 64) {
        compress();
        used_ = 0;
      }
    }
    bytes_ += data.size();
  }

  std::string finish() {
    const std::uint64_t bits = bytes_ * 8;
    block_[used_++] = 0x80;
    if (used_ > 56) {
      while (used_ < 64) block_[used_++] = 0;
      compress();
      used_ = 0;
    }
    while (used_ < 56) block_[used_++] = 0;
    for (int i = 7; i >= 0; --i) block_[used_++] = static_cast<std::uint8_t>(bits >> (8 * i));
    compress();
    std::string out(32, '\0');
    for (std::size_t i = 0; i < 32; ++i) {
      out[i] = static_cast<char>(static_cast<std::uint8_t>(h_[i / 4] >> (24 - 8 * (i % 4))));
    }
    return out;
  }

 private:
  void compress() {
    std::array<std::uint32_t, 64> w{};
    for (std::size_t i = 0; i < 16; ++i) {
      w[i] = static_cast<std::uint32_t>(block_[4 * i]) << 24 |
             static_cast<std::uint32_t>(block_[4 * i + 1]) << 16 |
             static_cast<std::uint32_t>(block_[4 * i + 2]) << 8 | block_[4 * i + 3];
    }
    for (std::size_t i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h_;
    for (std::size_t i = 0; i < 64; ++i) {
      const std::uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      const std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const std::uint32_t t1 = v[7] + s1 + ch + kRound[i] + w[i];
      const std::uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      const std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      const std::uint32_t t2 = s0 + maj;
      v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (std::size_t i = 0; i < 8; ++i) h_[i] += v[i];
  }

  std::array<std::uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> block_{};
  std::size_t used_ = 0;
  std::uint64_t bytes_ = 0;
};

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<std::uint8_t>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

}  // namespace

std::string sha256(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finish();
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  std::string block(64, '\0');
  if (key.size() > 64) {
    block.replace(0, 32, sha256(key));
  } else {
    block.replace(0, key.size(), key);
  }
  std::string inner_pad = block;
  std::string outer_pad = block;
  for (std::size_t i = 0; i < 64; ++i) {
    inner_pad[i] = static_cast<char>(inner_pad[i] ^ 0x36);
    outer_pad[i] = static_cast<char>(outer_pad[i] ^ 0x5c);
  }
  Sha256 inner;
  inner.update(inner_pad);
  inner.update(data);
  Sha256 outer;
  outer.update(outer_pad);
  outer.update(inner.finish());
  return outer.finish();
}

// --- the channel --------------------------------------------------------------------------

namespace {

constexpr const char* kVariable = "GPUMETER_EVALUATION_CHANNEL";

// Everything the channel knows; only ever touched with the GIL held. Objects it keeps (code,
// globals and frames) hold a reference each, so an address seen at seal time stays theirs.
struct Channel {
  bool open = false;
  bool sealed = false;
  bool reported = false;
  int fd = -1;
  std::string key;
  std::uint64_t sequence = 0;
  std::uint64_t measurements = 0;
  int measuring = 0;                    // depth of measurements now running
  std::vector<std::string> violations;  // each also sent as a frame when it happened
  std::vector<std::pair<std::string, std::string>> records;  // path, SHA-256 (hex)
  std::map<PyObject*, PyObject*> code;  // gpumeter's code -> the globals it runs with
  std::vector<PyObject*> base;          // the frames below the sealing one, innermost first
  // The driver's check now running (ChannelCheck): its implementation and seed, and whether its
  // one tag was given.
  bool checking = false;
  bool tagged = false;
  std::string check_implementation;
  std::uint64_t check_seed = 0;
};

Channel& channel() {
  static Channel c;
  return c;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (b < 0x20) {
      static constexpr char kDigits[] = "0123456789abcdef";
      out += "\\u00";
      out += kDigits[b >> 4];
      out += kDigits[b & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_string(items[i]);
  return out + "]";
}

// One frame: "gpumeter-channel 1 SEQ KIND LENGTH\n" BODY MAC "\n", the MAC (hex) over what
// precedes it. A write that fails (the descriptor closed or replaced) loses the frame; the
// parent sees the gap or the missing report.
bool send(const std::string& kind, const std::string& body) {
  Channel& c = channel();
  std::string frame = "gpumeter-channel 1 " + std::to_string(c.sequence++) + " " + kind + " " +
                      std::to_string(body.size()) + "\n" + body;
  frame += hex(hmac_sha256(c.key, frame)) + "\n";
  std::string_view rest = frame;
  while (!rest.empty()) {
    const ssize_t n = ::write(c.fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void violation(const std::string& sentence) {
  Channel& c = channel();
  c.violations.push_back(sentence);
  (void)send("violation", "{\"violation\": " + json_string(sentence) +
                              ", \"measurements\": " + std::to_string(c.measurements) + "}");
}

PyObject* frame_globals(PyFrameObject* frame) {  // a new reference
#if PY_VERSION_HEX >= 0x030B0000
  return PyFrame_GetGlobals(frame);
#else
  Py_XINCREF(frame->f_globals);
  return frame->f_globals;
#endif
}

// "file.py:12 in function", for a sentence.
std::string describe(PyFrameObject* frame) {
  PyCodeObject* code = PyFrame_GetCode(frame);
  nb::object c = nb::steal(reinterpret_cast<PyObject*>(code));
  std::string file = "?";
  std::string name = "?";
  try {
    file = std::filesystem::path(nb::cast<std::string>(c.attr("co_filename"))).filename();
    name = nb::cast<std::string>(c.attr("co_name"));
  } catch (const std::exception&) {  // a name that is not text: the placeholder says so
  }
  return file + ":" + std::to_string(PyFrame_GetLineNumber(frame)) + " in " + name;
}

// "" when the calling Python stack is gpumeter's own code down to the sealed base frames (with
// `at_base`, when the caller is the base's innermost frame itself); else the first frame that is
// not, described. Before the seal nothing of a candidate's exists, and every stack is trusted.
std::string foreign_frame(bool at_base) {
  Channel& c = channel();
  if (!c.sealed) return "";
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  std::string foreign;
  bool top = true;
  while (frame != nullptr) {
    if (reinterpret_cast<PyObject*>(frame) == c.base.front()) {
      // The rest of the stack must be the sealed frames, the very objects.
      for (PyObject* expected : c.base) {
        if (frame == nullptr || reinterpret_cast<PyObject*>(frame) != expected) {
          foreign = frame != nullptr ? describe(frame) : "the stack below gpumeter's run changed";
          break;
        }
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
      }
      if (foreign.empty() && frame != nullptr) foreign = describe(frame);
      Py_XDECREF(frame);
      return foreign;
    }
    bool ours = false;
    if (!at_base || !top) {
      PyObject* code = reinterpret_cast<PyObject*>(PyFrame_GetCode(frame));
      PyObject* globals = frame_globals(frame);
      const auto it = c.code.find(code);
      ours = it != c.code.end() && it->second == globals;
      Py_DECREF(code);
      Py_XDECREF(globals);
    }
    if (!ours) {
      foreign = describe(frame);
      Py_DECREF(frame);
      return foreign;
    }
    top = false;
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  return "no frame of gpumeter's run below it (a thread, a finalizer or an exit handler)";
}

// The code objects of gpumeter's modules as they are now: functions (and what they wrap),
// methods, properties, and the code nested in each, each with the globals it must run with.
class CodeCollector {
 public:
  explicit CodeCollector(std::set<PyObject*> globals) : globals_(std::move(globals)) {}

  void visit(PyObject* value, int depth) {
    if (depth > 4 || !seen_.insert(value).second) return;
    if (PyFunction_Check(value)) {
      PyObject* globals = PyFunction_GetGlobals(value);  // borrowed
      // A function of another module imported into gpumeter's (os.path.join) is not gpumeter's.
      if (globals_.count(globals) != 0) add_code(PyFunction_GetCode(value), globals);
      visit_attribute(value, "__wrapped__", depth);
    } else if (PyType_Check(value)) {
      // A class's module by its own dict (no metaclass code runs): gpumeter's classes only.
      // From 3.12 a static builtin type (int, object) has no tp_dict: PyType_GetDict is its dict.
#if PY_VERSION_HEX >= 0x030C0000
      const nb::object owned = nb::steal(PyType_GetDict(reinterpret_cast<PyTypeObject*>(value)));
      PyObject* dict = owned.ptr();
#else
      PyObject* dict = reinterpret_cast<PyTypeObject*>(value)->tp_dict;
#endif
      if (dict == nullptr) {
        PyErr_Clear();
        return;
      }
      PyObject* named = PyDict_GetItemString(dict, "__module__");  // borrowed
      if (named == nullptr || !PyUnicode_Check(named)) return;
      Py_ssize_t size = 0;
      const char* text = PyUnicode_AsUTF8AndSize(named, &size);
      if (text == nullptr) {
        PyErr_Clear();
        return;
      }
      const std::string module(text, static_cast<std::size_t>(size));
      if (module != "gpumeter" && module.rfind("gpumeter.", 0) != 0 && module != "__main__") {
        return;
      }
      PyObject* key = nullptr;
      PyObject* item = nullptr;
      Py_ssize_t pos = 0;
      std::vector<PyObject*> items;
      while (PyDict_Next(dict, &pos, &key, &item)) items.push_back(item);
      for (PyObject* i : items) visit(i, depth + 1);
    } else if (PyObject_TypeCheck(value, &PyStaticMethod_Type) ||
               PyObject_TypeCheck(value, &PyClassMethod_Type)) {
      visit_attribute(value, "__func__", depth);
    } else if (PyObject_TypeCheck(value, &PyProperty_Type)) {
      for (const char* part : {"fget", "fset", "fdel"}) visit_attribute(value, part, depth);
    }
  }

 private:
  void visit_attribute(PyObject* value, const char* name, int depth) {
    PyObject* attribute = PyObject_GetAttrString(value, name);
    if (attribute == nullptr) {
      PyErr_Clear();
      return;
    }
    kept_.push_back(nb::steal(attribute));
    visit(attribute, depth + 1);
  }

  void add_code(PyObject* code, PyObject* globals) {
    if (!PyCode_Check(code)) return;
    Channel& c = channel();
    if (!c.code.emplace(code, globals).second) return;
    Py_INCREF(code);  // kept for the process's life: its address stays this code's
    Py_INCREF(globals);
    nb::object consts = nb::borrow(code).attr("co_consts");
    for (nb::handle item : consts) add_code(item.ptr(), globals);
  }

  std::set<PyObject*> globals_;
  std::set<PyObject*> seen_;
  std::vector<nb::object> kept_;
};

bool is_gpumeter(const std::string& name) {
  return name == "gpumeter" || name.rfind("gpumeter.", 0) == 0;
}

// Reads the variable into this file's memory and erases every copy the process has of it: the
// bytes of the process's environment block (what /proc/self/environ shows), libc's entry, and
// Python's os.environ (whose data is posix.environ on POSIX), its bytes overwritten first.
bool open_channel() {
  Channel& c = channel();
  if (c.open) return false;
  char* value = std::getenv(kVariable);
  if (value == nullptr) return false;
  const std::string_view text(value);
  const std::size_t colon = text.find(':');
  std::string key;
  int fd = -1;
  try {
    fd = std::stoi(std::string(text.substr(0, colon)));
  } catch (const std::exception&) {
    fd = -1;
  }
  const std::string_view key_hex = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (key_hex.size() == 64 && key_hex.find_first_not_of("0123456789abcdef") == key_hex.npos) {
    for (std::size_t i = 0; i < 64; i += 2) {
      key += static_cast<char>(std::stoi(std::string(key_hex.substr(i, 2)), nullptr, 16));
    }
  }
  std::memset(value, 0, text.size());
  ::unsetenv(kVariable);
  nb::object environ = nb::module_::import_("os").attr("environ");
  nb::object data = nb::getattr(environ, "_data", nb::none());
  if (nb::isinstance<nb::dict>(data)) {
    nb::object stored = nb::borrow<nb::dict>(data).attr("get")(nb::bytes(kVariable));
    if (PyBytes_CheckExact(stored.ptr())) {
      std::memset(PyBytes_AS_STRING(stored.ptr()), 0,
                  static_cast<std::size_t>(PyBytes_GET_SIZE(stored.ptr())));
    }
  }
  environ.attr("pop")(kVariable, nb::none());
  if (fd < 0 || key.size() != 32) {
    throw std::runtime_error(std::string(kVariable) + " is not FD:KEY (64 hex digits)");
  }
  // Not passed on to a program the candidate starts: only this process's compiled code writes it.
  (void)::fcntl(fd, F_SETFD, FD_CLOEXEC);
  c.fd = fd;
  c.key = std::move(key);
  c.open = true;
  return true;
}

void seal_channel() {
  Channel& c = channel();
  if (!c.open) return;
  if (c.sealed) {
    violation("the channel sealed a second time");
    return;
  }
  // The frames below the caller (evaluate's main and what runs it), kept as they are.
  PyFrameObject* caller = PyEval_GetFrame();
  if (caller == nullptr) throw std::runtime_error("evaluation_channel_seal: no calling frame");
  std::set<PyObject*> globals;
  PyObject* caller_globals = frame_globals(caller);
  globals.insert(caller_globals);
  for (PyFrameObject* frame = PyFrame_GetBack(caller); frame != nullptr;) {
    c.base.push_back(reinterpret_cast<PyObject*>(frame));  // keeps the reference
    frame = PyFrame_GetBack(frame);
  }
  if (c.base.empty()) throw std::runtime_error("evaluation_channel_seal: nothing calls its caller");
  std::vector<PyObject*> namespaces{caller_globals};
  nb::dict modules = nb::borrow<nb::dict>(nb::module_::import_("sys").attr("modules"));
  std::vector<nb::object> kept;
  for (nb::handle item : nb::list(modules.attr("items")())) {
    nb::object name = item[0];
    nb::object module = item[1];
    if (!nb::isinstance<nb::str>(name) || !is_gpumeter(nb::cast<std::string>(name)) ||
        !PyModule_Check(module.ptr())) {
      continue;
    }
    PyObject* dict = PyModule_GetDict(module.ptr());  // borrowed; the module keeps it
    globals.insert(dict);
    namespaces.push_back(dict);
    kept.push_back(module);
  }
  CodeCollector collector(globals);
  for (PyObject* dict : namespaces) {
    std::vector<nb::object> values;
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) values.push_back(nb::borrow(value));
    for (const nb::object& v : values) collector.visit(v.ptr(), 0);
  }
  Py_XDECREF(caller_globals);  // each dict is kept by its module (and its code's entries)
  c.sealed = true;
}

bool report(const std::string& payload) {
  Channel& c = channel();
  if (!c.open) throw std::runtime_error("no evaluation channel is open in this process");
  if (c.measuring > 0) {
    violation("a report asked for inside a measurement");
    return false;
  }
  if (c.reported) {
    violation("a second report");
    return false;
  }
  if (const std::string foreign = foreign_frame(true); !foreign.empty()) {
    violation("a report asked for by code that is not gpumeter's (" + foreign + ")");
    return false;
  }
  c.reported = true;
  std::string records = "[";
  for (std::size_t i = 0; i < c.records.size(); ++i) {
    records += (i ? ", " : "") + std::string("{\"path\": ") + json_string(c.records[i].first) +
               ", \"sha256\": " + json_string(c.records[i].second) + "}";
  }
  records += "]";
  // The tamper capture's names compared here, by the compiled code itself: the payload's own list
  // is built by Python the candidate's threads could reach.
  const std::optional<std::vector<std::string>> watched = watched_names_changed();
  return send("report", "{\"payload\": " + json_string(payload) +
                            ", \"watched\": " + (watched ? json_strings(*watched) : "null") +
                            ", \"violations\": " + json_strings(c.violations) +
                            ", \"measurements\": " + std::to_string(c.measurements) +
                            ", \"records\": " + records + "}");
}

// The key the checker verifies tags with: derived from the channel's key, so the parent, which
// made that key, gives it to the checker, and no process but these two and the child's compiled
// code holds it.
std::string check_key_of(std::string_view channel_key) {
  return hmac_sha256(channel_key, "gpumeter checker key 1");
}

// What a check's tag authenticates: the implementation and the seed of the call checked.
std::string check_tag_of(std::string_view check_key, const std::string& implementation,
                         std::uint64_t seed) {
  return hex(
      hmac_sha256(check_key, "gpumeter check 1 " + std::to_string(seed) + " " + implementation));
}

// The tag of the check now running, for gpumeter's own code asking within it; else a violation
// and "" (which the checker refuses: a check gpumeter did not make).
std::string check_tag(const std::string& implementation, std::uint64_t seed) {
  Channel& c = channel();
  if (!c.open) throw std::runtime_error("no evaluation channel is open in this process");
  if (!c.checking || c.measuring == 0) {
    violation(
        "a check's tag asked for outside gpumeter's check of a call (a check the candidate "
        "sent itself)");
    return "";
  }
  if (c.tagged || implementation != c.check_implementation || seed != c.check_seed) {
    violation(
        "a check's tag asked for a second time, or for another call than the one gpumeter "
        "checks");
    return "";
  }
  if (const std::string foreign = foreign_frame(false); !foreign.empty()) {
    violation("a check's tag asked for by code that is not gpumeter's (" + foreign + ")");
    return "";
  }
  c.tagged = true;
  return check_tag_of(check_key_of(c.key), implementation, seed);
}

}  // namespace

ChannelCheck::ChannelCheck(const std::string& implementation, std::uint64_t seed) {
  Channel& c = channel();
  if (!c.open) return;
  watch_at_check();
  c.checking = true;
  c.tagged = false;
  c.check_implementation = implementation;
  c.check_seed = seed;
  open_ = true;
}

ChannelCheck::~ChannelCheck() {
  if (!open_) return;
  Channel& c = channel();
  c.checking = false;
  c.tagged = false;
  watch_at_check();
}

ChannelMeasurement::ChannelMeasurement() {
  Channel& c = channel();
  if (!c.open) return;
  ++c.measurements;
  if (const std::string foreign = foreign_frame(false); !foreign.empty()) {
    violation("a measurement started by code that is not gpumeter's (" + foreign + ")");
  } else if (c.measuring > 0 && c.sealed) {
    // gpumeter never nests them: one started from a callback of the running one (a C callable
    // a candidate's object holds, which leaves no frame of its own) is not gpumeter's.
    violation("a measurement started inside a measurement");
  }
  ++c.measuring;
  counted_ = true;
}

ChannelMeasurement::~ChannelMeasurement() {
  if (counted_) --channel().measuring;
}

bool channel_open() {
  return channel().open;
}

void channel_record_written(const std::string& path, const std::string& text) {
  Channel& c = channel();
  if (!c.open) return;
  if (const std::string foreign = foreign_frame(false); !foreign.empty()) {
    violation("a record written by code that is not gpumeter's (" + foreign + ")");
  }
  c.records.emplace_back(std::filesystem::absolute(path).lexically_normal().string(),
                         hex(sha256(text)));
}

void bind_evaluation_channel(nb::module_& m) {
  m.def("evaluation_channel_open", &open_channel,
        "Opens the report channel gpumeter evaluate's parent gave this process (the variable "
        "GPUMETER_EVALUATION_CHANNEL, erased here); False when there is none or it is open.");
  m.def("evaluation_channel_seal", &seal_channel,
        "Records the frames below the caller and gpumeter's code as they are now: from here on a "
        "report, a measurement or a record must come from that code over those frames.");
  m.def("evaluation_report", &report, nb::arg("payload"),
        "Sends the one report (payload: JSON text) with the violations, the measurements started "
        "and the records written; a call from a stack not gpumeter's, inside a measurement or a "
        "second time sends a violation instead and returns False.");
  m.def("evaluation_check_tag", &check_tag, nb::arg("implementation"), nb::arg("seed"),
        "The tag gpumeter's checker accepts for the answer of the call the driver checks now "
        "(its implementation and seed), given once, to gpumeter's own code; asked for outside "
        "that check, a second time or by other code, a violation is sent and '' returned.");
  m.def(
      "evaluation_check_key",
      [](nb::bytes channel_key) {
        return nb::bytes(check_key_of({channel_key.c_str(), channel_key.size()}).data(), 32);
      },
      nb::arg("channel_key"),
      "The key gpumeter's checker verifies a run's tags with, from the run's channel key.");
  m.def(
      "evaluation_check_tag_of",
      [](nb::bytes check_key, const std::string& implementation, std::uint64_t seed) {
        return check_tag_of({check_key.c_str(), check_key.size()}, implementation, seed);
      },
      nb::arg("check_key"), nb::arg("implementation"), nb::arg("seed"),
      "The tag of a check of `implementation` on `seed` under `check_key` (hex): what the "
      "checker compares a check's tag with.");
  m.def(
      "sha256_hex",
      [](nb::bytes data) {
        return hex(sha256({data.c_str(), data.size()}));
      },
      nb::arg("data"), "SHA-256 of the bytes, in hex (the channel's own, for its tests).");
  m.def(
      "hmac_sha256_hex",
      [](nb::bytes key, nb::bytes data) {
        return hex(hmac_sha256({key.c_str(), key.size()}, {data.c_str(), data.size()}));
      },
      nb::arg("key"), nb::arg("data"), "HMAC-SHA256 in hex (the channel's own, for its tests).");
}

}  // namespace gpumeter::python
