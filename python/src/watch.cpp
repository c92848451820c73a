// The tamper check of `gpumeter evaluate` (B11), kept out of Python's reach. The candidate's
// process (gpumeter/_evaluate_child.py) decides what to watch before any candidate code exists and
// hands it here; what was captured lives in static C++ storage, which no Python container holds
// (gc.get_objects() cannot find it), and after the run every name is resolved again here, through
// the interpreter's own module table and the modules' and classes' dicts, without running any
// getattr code. An audit hook installed at capture records, from then on, the hooks a candidate
// sets and removes before the end of its run.
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "binding.hpp"

namespace gpumeter::python {
// A namespace of its own: the module's files are compiled as one unit (a unity build), where
// helpers of the same name in other files' anonymous namespaces would collide.
namespace watching {
namespace {

// A name and what it held, and for a function what it runs (a function's code swapped in place
// leaves the object the same). Every PyObject* here is a strong reference, never released: the
// capture lives as long as the process.
struct Entry {
  std::string key;
  PyObject* value = nullptr;
  PyObject* function = nullptr;  // given by the caller where the value is no function itself
  PyObject* code = nullptr;
  PyObject* defaults = nullptr;
  PyObject* kwdefaults = nullptr;
};

// A reading made by calling a function (sys.getprofile, tuple over sys.meta_path): the callable
// and its arguments are kept, so a name replaced since cannot change what is read after.
struct Probe {
  std::string key;
  PyObject* fn = nullptr;
  PyObject* args = nullptr;
  PyObject* value = nullptr;  // null where the call failed (then `error`)
  std::string error;
};

// One operator's registrations, digested: each dispatch key's lines hashed in order.
using OpDigest = std::vector<std::pair<std::string, std::uint64_t>>;

struct Capture {
  bool taken = false;
  bool recording = false;
  std::vector<Entry> entries;
  std::unordered_set<std::string> keys;
  std::vector<std::string> whole_modules;  // the modules captured as sys.modules['X']
  std::vector<Probe> probes;
  std::map<std::string, std::string> settings;
  std::unordered_set<PyObject*> classes;       // whose attributes replaced are reported
  std::unordered_set<PyObject*> module_dicts;  // the globals of every module at capture
  std::vector<std::string> events;             // what the audit hook saw
  std::set<std::string> seen_events;
  std::vector<std::string> refused;
  PyObject* op_names = nullptr;
  PyObject* op_dump = nullptr;
  std::vector<std::pair<std::string, OpDigest>> ops;
  std::string ops_error;
  // Where each watched callable lives (its module's or class's dict, then the attribute): what
  // the dict watcher (3.12+) sees replaced as it happens, a name replaced and put back included.
  std::unordered_map<PyObject*, std::unordered_map<std::string, std::size_t>> homes;
};

// Allocated once and never destroyed: the references it holds must not be released after the
// interpreter has finalized.
Capture& capture() {
  static Capture* c = new Capture;
  return *c;
}

PyObject* keep(PyObject* o) {
  Py_XINCREF(o);
  return o;
}

// The class name of the exception being raised, which is cleared.
std::string exception_name() {
#if PY_VERSION_HEX >= 0x030C0000
  PyObject* exc = PyErr_GetRaisedException();  // PyErr_Fetch is deprecated from 3.12
  std::string name = exc != nullptr ? Py_TYPE(exc)->tp_name : "error";
  Py_XDECREF(exc);
#else
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  std::string name = "error";
  if (type != nullptr && PyType_Check(type)) name = reinterpret_cast<PyTypeObject*>(type)->tp_name;
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
#endif
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::string utf8(PyObject* s) {
  if (s == nullptr || !PyUnicode_Check(s)) return {};
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s, &n);
  if (p == nullptr) {
    PyErr_Clear();
    return {};
  }
  return std::string(p, static_cast<std::size_t>(n));
}

// A new reference to the dict a module's or a class's attributes live in, or null: read
// directly, never through __dict__ or getattr (which could run code).
PyObject* namespace_dict(PyObject* target) {
  if (PyModule_Check(target)) return keep(PyModule_GetDict(target));
  if (PyType_Check(target)) {
#if PY_VERSION_HEX >= 0x030C0000
    return PyType_GetDict(reinterpret_cast<PyTypeObject*>(target));
#else
    return keep(reinterpret_cast<PyTypeObject*>(target)->tp_dict);
#endif
  }
  return nullptr;
}

// A borrowed item of a dict by a str key, without the lookup's errors.
PyObject* item(PyObject* dict, const std::string& key) {
  PyObject* k = PyUnicode_FromStringAndSize(key.data(), static_cast<Py_ssize_t>(key.size()));
  if (k == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject* v = PyDict_GetItemWithError(dict, k);
  Py_DECREF(k);
  if (v == nullptr) PyErr_Clear();
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

constexpr std::string_view kModulesKey = "sys.modules[";

std::optional<std::string> module_of_key(const std::string& key) {
  if (key.rfind(kModulesKey, 0) != 0 || key.size() < kModulesKey.size() + 1) return std::nullopt;
  std::string name = key.substr(kModulesKey.size(), key.size() - kModulesKey.size() - 1);
  while (!name.empty() && (name.front() == '\'' || name.front() == '"')) name.erase(0, 1);
  while (!name.empty() && (name.back() == '\'' || name.back() == '"')) name.pop_back();
  return name;
}

// What `key` names now (a new reference), or null: "sys.modules['X']", or the longest dotted
// prefix that is a module of the interpreter's own module table (not sys.modules, which code can
// rebind), then attributes through the dicts of modules and classes.
PyObject* lookup(const std::string& key) {
  PyObject* modules = PyImport_GetModuleDict();
  if (const auto name = module_of_key(key)) return keep(item(modules, *name));
  const std::vector<std::string> parts = split(key, '.');
  for (std::size_t cut = parts.size() - 1; cut > 0; --cut) {
    std::string prefix = parts[0];
    for (std::size_t i = 1; i < cut; ++i) prefix += "." + parts[i];
    PyObject* module = item(modules, prefix);
    if (module == nullptr || module == Py_None) continue;
    PyObject* target = keep(module);
    for (std::size_t i = cut; i < parts.size(); ++i) {
      PyObject* dict = namespace_dict(target);
      Py_DECREF(target);
      if (dict == nullptr) return nullptr;
      target = keep(item(dict, parts[i]));
      Py_DECREF(dict);
      if (target == nullptr) return nullptr;
    }
    return target;
  }
  return nullptr;
}

// The function a value runs where it can be read without running code: a function, a bound
// method's, a classmethod's or staticmethod's (exact types: a subclass could run code). Borrowed.
PyObject* function_of(PyObject* value) {
  if (value == nullptr) return nullptr;
  if (PyFunction_Check(value)) return value;
  if (PyMethod_Check(value)) {
    PyObject* f = PyMethod_GET_FUNCTION(value);
    return PyFunction_Check(f) ? f : nullptr;
  }
  if (Py_IS_TYPE(value, &PyClassMethod_Type) || Py_IS_TYPE(value, &PyStaticMethod_Type)) {
    PyObject* f = PyObject_GetAttrString(value, "__func__");
    if (f == nullptr) {
      PyErr_Clear();
      return nullptr;
    }
    Py_DECREF(f);  // the descriptor holds it
    return PyFunction_Check(f) ? f : nullptr;
  }
  return nullptr;
}

// Two readings of a probe the same: the same object, or equal plain numbers and text, or lists
// and tuples of the same objects (the contents of sys.meta_path).
bool same(PyObject* a, PyObject* b, int depth = 0) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  if ((PyLong_CheckExact(a) && PyLong_CheckExact(b)) ||
      (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b))) {
    const int eq = PyObject_RichCompareBool(a, b, Py_EQ);
    if (eq < 0) PyErr_Clear();
    return eq == 1;
  }
  const bool seq_a = PyTuple_CheckExact(a) || PyList_CheckExact(a);
  const bool seq_b = PyTuple_CheckExact(b) || PyList_CheckExact(b);
  if (!seq_a || !seq_b || depth > 2) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
  if (n != PySequence_Fast_GET_SIZE(b)) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!same(PySequence_Fast_GET_ITEM(a, i), PySequence_Fast_GET_ITEM(b, i), depth + 1)) {
      return false;
    }
  }
  return true;
}

void read_probe(Probe& p) {
  Py_CLEAR(p.value);
  p.error.clear();
  p.value = PyObject_CallObject(p.fn, p.args);
  if (p.value == nullptr) p.error = "unreadable (" + exception_name() + ")";
}

// --- the audit hook -----------------------------------------------------------------------------

// Events that set an interpreter hook: each is reported whatever the hook's state at the end (a
// hook set and removed within the run still saw it).
struct HookEvent {
  const char* event;
  const char* what;
};
constexpr HookEvent kHookEvents[] = {
    {"sys.addaudithook", "an audit hook added"},
    {"sys.setprofile", "a profile hook set or removed"},
    {"sys.settrace", "a trace hook set or removed"},
    {"sys._setprofileallthreads", "a profile hook set on every thread"},
    {"sys._settraceallthreads", "a trace hook set on every thread"},
    {"sys.monitoring.register_callback", "a sys.monitoring callback registered"},
    {"sys.monitoring.use_tool_id", "a sys.monitoring tool id taken"},
};
constexpr std::size_t kMaxEvents = 64;

void note(Capture& c, std::string line) {
  if (c.seen_events.size() >= kMaxEvents || !c.seen_events.insert(line).second) return;
  c.events.push_back(std::move(line));
}

std::string dotted_name(PyObject* module_name, PyObject* name) {
  const std::string m = utf8(module_name);
  const std::string n = utf8(name);
  return m.empty() ? n : m + "." + n;
}

int audit_hook(const char* event, PyObject* args, void* /*user data*/) {
  Capture& c = capture();
  if (!c.recording) return 0;
  for (const HookEvent& h : kHookEvents) {
    if (std::strcmp(event, h.event) == 0) {
      note(c, std::string(event) + " (" + h.what + " during the run)");
      return 0;
    }
  }
  if (std::strcmp(event, "object.__setattr__") != 0 || !PyTuple_Check(args) ||
      PyTuple_GET_SIZE(args) < 2) {
    return 0;
  }
  PyObject* obj = PyTuple_GET_ITEM(args, 0);
  const std::string attr = utf8(PyTuple_GET_ITEM(args, 1));
  if (PyFunction_Check(obj) &&
      (attr == "__code__" || attr == "__defaults__" || attr == "__kwdefaults__")) {
    // A function of a module that existed at capture (the candidate's own functions are its
    // business): its code or defaults set in place.
    PyObject* globals = PyFunction_GET_GLOBALS(obj);
    if (c.module_dicts.count(globals) == 0) return 0;
    PyObject* module = PyDict_GetItemString(globals, "__name__");
    const auto* fn = reinterpret_cast<PyFunctionObject*>(obj);
    note(c, dotted_name(module, fn->func_qualname) + "." + attr +
                " (set during the run: its code or defaults replaced)");
  } else if (PyType_Check(obj) && c.classes.count(obj) != 0) {
    // Replaced, not added: the name is in the class's dict before the assignment.
    PyObject* dict = namespace_dict(obj);
    if (dict == nullptr) return 0;
    const bool present = item(dict, attr) != nullptr;
    Py_DECREF(dict);
    if (!present) return 0;
    const auto* type = reinterpret_cast<PyTypeObject*>(obj);
    note(c, std::string(type->tp_name) + "." + attr + " (replaced during the run)");
  }
  return 0;
}

// --- the dict watcher (3.12+) -------------------------------------------------------------------

#if PY_VERSION_HEX >= 0x030C0000
// The dict an entry's name is an attribute of (a new reference) and the attribute, or null.
PyObject* home_of(const std::string& key, std::string& attr) {
  if (module_of_key(key)) return nullptr;
  const auto dot = key.rfind('.');
  if (dot == std::string::npos) return nullptr;
  const std::string owner_key = key.substr(0, dot);
  PyObject* owner = lookup(owner_key);
  // lookup reads attributes of modules: a module's own function ("torch.allclose") has a module
  // of one name, found in the module table itself.
  if (owner == nullptr) owner = keep(item(PyImport_GetModuleDict(), owner_key));
  if (owner == nullptr || owner == Py_None) {
    Py_XDECREF(owner);
    return nullptr;
  }
  PyObject* dict = namespace_dict(owner);
  Py_DECREF(owner);
  attr = key.substr(dot + 1);
  return dict;
}

int dict_watcher(PyDict_WatchEvent event, PyObject* dict, PyObject* key, PyObject* new_value) {
  Capture& c = capture();
  if (!c.recording) return 0;
  const auto home = c.homes.find(dict);
  if (home == c.homes.end()) return 0;
  if (event == PyDict_EVENT_CLEARED) {
    note(c,
         c.entries[home->second.begin()->second].key + " (its namespace cleared during the run)");
    return 0;
  }
  if ((event != PyDict_EVENT_MODIFIED && event != PyDict_EVENT_DELETED) || key == nullptr) {
    return 0;
  }
  const auto slot = home->second.find(utf8(key));
  if (slot == home->second.end()) return 0;
  const Entry& e = c.entries[slot->second];
  if (new_value == e.value) return 0;
  note(c,
       e.key + (new_value == nullptr ? " (removed during the run)" : " (replaced during the run)"));
  return 0;
}
#endif

// Watches the dicts that hold the watched callables (data a run may update is left to the check
// at the end). Python before 3.12 has no dict watchers: the check at the end sees only what is
// still replaced then.
void watch_homes(Capture& c) {
#if PY_VERSION_HEX >= 0x030C0000
  const int watcher = PyDict_AddWatcher(dict_watcher);
  if (watcher < 0) {
    c.refused.emplace_back("gpumeter's dict watcher (none free: " + exception_name() + ")");
    return;
  }
  for (std::size_t i = 0; i < c.entries.size(); ++i) {
    const Entry& e = c.entries[i];
    if (!PyCallable_Check(e.value) || PyModule_Check(e.value)) continue;
    std::string attr;
    PyObject* dict = home_of(e.key, attr);
    if (dict == nullptr) continue;
    if (item(dict, attr) == e.value) {
      auto [it, fresh] = c.homes.try_emplace(dict);
      it->second.emplace(attr, i);
      if (fresh && PyDict_Watch(watcher, dict) < 0) PyErr_Clear();
      if (fresh) Py_INCREF(dict);  // kept: the pointer stays this dict's
    }
    Py_DECREF(dict);
  }
#else
  (void)c;
#endif
}

// --- the dispatcher -----------------------------------------------------------------------------

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ULL) {
  for (const char ch : s) {
    h ^= static_cast<unsigned char>(ch);
    h *= 1099511628211ULL;
  }
  return h;
}

// The dispatch key a line of _dispatch_dump registers for ("CUDA: registered at ...",
// "CUDA (inactive): ...", "CompositeImplicitAutograd[alias]: ...", "schema: ..."), the same for
// a key's active and inactive kernels.
std::string dispatch_key_of(std::string_view line) {
  const std::size_t colon = line.find(": ");
  std::string key(line.substr(0, colon == std::string_view::npos ? line.size() : colon));
  for (const std::string_view suffix :
       {std::string_view(" (inactive)"), std::string_view("[alias]")}) {
    if (key.size() >= suffix.size() &&
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
      key.erase(key.size() - suffix.size());
    }
  }
  return key;
}

OpDigest digest_dump(std::string_view dump) {
  OpDigest out;
  std::size_t start = 0;
  while (start < dump.size()) {
    std::size_t end = dump.find('\n', start);
    if (end == std::string_view::npos) end = dump.size();
    const std::string_view line = dump.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    std::string key = dispatch_key_of(line);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; });
    if (it == out.end()) {
      out.emplace_back(std::move(key), fnv1a(line));
    } else {
      it->second = fnv1a(line, it->second ^ 0x9e3779b97f4a7c15ULL);
    }
  }
  return out;
}

// The dispatch keys whose registrations differ between two digests, in the order of `after`,
// then those gone.
std::vector<std::string> differing_keys(const OpDigest& before, const OpDigest& after) {
  // A structured binding cannot be captured by a lambda in clang 14: plain pairs.
  const auto find = [](const OpDigest& d, const std::string& key) {
    return std::find_if(d.begin(), d.end(), [&key](const auto& kv) { return kv.first == key; });
  };
  std::vector<std::string> keys;
  for (const auto& kv : after) {
    auto it = find(before, kv.first);
    if (it == before.end() || it->second != kv.second) keys.push_back(kv.first);
  }
  for (const auto& kv : before) {
    if (find(after, kv.first) == after.end()) keys.push_back(kv.first);
  }
  return keys;
}

// One operator's dump digested, or the reason it could not be read (digested too, so an
// operator unreadable before and after reads unchanged).
OpDigest dump_digest(PyObject* dump_fn, PyObject* name) {
  PyObject* text = PyObject_CallOneArg(dump_fn, name);
  if (text == nullptr) return {{"unreadable", fnv1a(exception_name())}};
  std::string s = utf8(text);
  Py_DECREF(text);
  return digest_dump(s);
}

// Every operator's name, or the reason they cannot be listed.
std::vector<PyObject*> op_names(PyObject* names_fn, std::string& error) {
  std::vector<PyObject*> names;
  PyObject* list = PyObject_CallNoArgs(names_fn);
  if (list == nullptr) {
    error = "unreadable (" + exception_name() + ")";
    return names;
  }
  PyObject* fast = PySequence_Fast(list, "operator names");
  Py_DECREF(list);
  if (fast == nullptr) {
    error = "unreadable (" + exception_name() + ")";
    return names;
  }
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); ++i) {
    PyObject* n = PySequence_Fast_GET_ITEM(fast, i);
    if (PyUnicode_Check(n)) names.push_back(keep(n));
  }
  Py_DECREF(fast);
  return names;
}

void capture_dispatcher(Capture& c) {
  const std::vector<PyObject*> names = op_names(c.op_names, c.ops_error);
  c.ops.reserve(names.size());
  for (PyObject* n : names) {
    c.ops.emplace_back(utf8(n), dump_digest(c.op_dump, n));
    Py_DECREF(n);
  }
}

void dispatcher_changes(Capture& c, std::vector<std::string>& changed) {
  if (c.op_names == nullptr) return;
  std::string error;
  const std::vector<PyObject*> names = op_names(c.op_names, error);
  if (!error.empty() || !c.ops_error.empty()) {
    if (error != c.ops_error) {
      changed.push_back("torch operators (was " + (c.ops_error.empty() ? "readable" : c.ops_error) +
                        ", now " + (error.empty() ? "readable" : error) + ")");
    }
    for (PyObject* n : names) Py_DECREF(n);
    return;
  }
  std::map<std::string, PyObject*> now;
  for (PyObject* n : names) now.emplace(utf8(n), n);
  for (const auto& [name, before] : c.ops) {
    auto it = now.find(name);
    if (it == now.end()) {
      changed.push_back("torch operator " + name + ": gone after the capture");
      continue;
    }
    const std::vector<std::string> keys =
        differing_keys(before, dump_digest(c.op_dump, it->second));
    if (keys.empty()) continue;
    std::string line = "torch operator " + name +
                       ": its kernels changed after the capture (a kernel registered by the "
                       "candidate; dispatch keys ";
    for (std::size_t i = 0; i < keys.size(); ++i) line += (i ? ", " : "") + keys[i];
    changed.push_back(line + ")");
  }
  for (PyObject* n : names) Py_DECREF(n);
}

// --- capture and compare ------------------------------------------------------------------------

// Sequences of plain objects (each checked here): their stubs stay fully typed for mypy --strict.
void watch_capture(const std::vector<nb::object>& entries,
                   const std::map<std::string, std::string>& settings,
                   const std::vector<nb::object>& probes, const std::vector<nb::object>& classes,
                   const std::optional<std::pair<nb::object, nb::object>>& dispatcher) {
  Capture& c = capture();
  if (c.taken) {
    // One capture per process: a second would let code rewrite what the first kept.
    c.refused.emplace_back("gpumeter._gpumeter.watch_capture (called again after the capture)");
    throw std::runtime_error("watch_capture: the capture is taken once per process");
  }
  c.taken = true;
  for (nb::handle e : entries) {
    if (!PyTuple_Check(e.ptr()) || PyTuple_GET_SIZE(e.ptr()) < 2) {
      throw nb::type_error("watch_capture: each entry is a tuple (key, object[, function])");
    }
    const nb::tuple t = nb::borrow<nb::tuple>(e);
    Entry entry;
    entry.key = nb::cast<std::string>(t[0]);
    entry.value = keep(t[1].ptr());
    PyObject* fn = function_of(entry.value);
    if (fn == nullptr && t.size() > 2 && PyFunction_Check(t[2].ptr())) fn = t[2].ptr();
    if (fn != nullptr) {
      entry.function = keep(fn);
      entry.code = keep(PyFunction_GET_CODE(fn));
      entry.defaults = keep(PyFunction_GET_DEFAULTS(fn));
      entry.kwdefaults = keep(PyFunction_GET_KW_DEFAULTS(fn));
    }
    if (const auto module = module_of_key(entry.key)) c.whole_modules.push_back(*module);
    c.keys.insert(entry.key);
    c.entries.push_back(std::move(entry));
  }
  c.settings = settings;
  for (nb::handle p : probes) {
    if (!PyTuple_Check(p.ptr()) || PyTuple_GET_SIZE(p.ptr()) != 3) {
      throw nb::type_error("watch_capture: each probe is a tuple (key, callable, args)");
    }
    const nb::tuple t = nb::borrow<nb::tuple>(p);
    Probe probe;
    probe.key = nb::cast<std::string>(t[0]);
    probe.fn = keep(t[1].ptr());
    probe.args = PySequence_Tuple(t[2].ptr());
    if (probe.args == nullptr) throw nb::python_error();
    read_probe(probe);
    c.probes.push_back(std::move(probe));
  }
  for (nb::handle cls : classes) {
    if (PyType_Check(cls.ptr())) c.classes.insert(keep(cls.ptr()));
  }
  PyObject* modules = PyImport_GetModuleDict();
  Py_ssize_t pos = 0;
  PyObject* name = nullptr;
  PyObject* module = nullptr;
  while (PyDict_Next(modules, &pos, &name, &module)) {
    if (PyModule_Check(module)) c.module_dicts.insert(keep(PyModule_GetDict(module)));
  }
  if (dispatcher) {
    c.op_names = keep(dispatcher->first.ptr());
    c.op_dump = keep(dispatcher->second.ptr());
    capture_dispatcher(c);
  }
  if (PySys_AddAuditHook(audit_hook, nullptr) < 0) {
    // Refused by an audit hook already there: the capture says so rather than watching less.
    c.refused.emplace_back("sys.addaudithook (gpumeter's audit hook refused: " + exception_name() +
                           ")");
  }
  watch_homes(c);
  c.recording = true;
}

std::vector<std::string> watch_changes_impl(const std::map<std::string, std::string>* after) {
  Capture& c = capture();
  if (!c.taken) throw std::runtime_error("watch_changes: nothing was captured");
  std::vector<std::string> changed;
  for (const Entry& e : c.entries) {
    PyObject* now = lookup(e.key);
    if (now == nullptr) {
      changed.push_back(e.key + " (removed)");
      continue;
    }
    if (now != e.value) {
      changed.push_back(e.key + " (replaced)");
    } else if (e.function != nullptr) {
      // The same object; what it runs read again (a method's function re-derived: a
      // staticmethod can be re-initialized around another one).
      PyObject* fn = function_of(now);
      if (fn == nullptr) fn = e.function;
      if (fn != e.function || PyFunction_GET_CODE(fn) != e.code ||
          PyFunction_GET_DEFAULTS(fn) != e.defaults ||
          PyFunction_GET_KW_DEFAULTS(fn) != e.kwdefaults) {
        changed.push_back(e.key + " (its code or defaults replaced)");
      }
    }
    Py_DECREF(now);
  }
  // Added names, in gpumeter's modules (a submodule imported since is new as a whole; a dunder
  // such as __warningregistry__ is Python's own bookkeeping).
  PyObject* modules = PyImport_GetModuleDict();
  for (const std::string& name : c.whole_modules) {
    PyObject* module = item(modules, name);
    if (module == nullptr || !PyModule_Check(module)) continue;
    PyObject* dict = PyModule_GetDict(module);
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    while (PyDict_Next(dict, &pos, &key, &value)) {
      const std::string attr = utf8(key);
      const bool dunder = attr.size() > 4 && attr.rfind("__", 0) == 0 &&
                          attr.compare(attr.size() - 2, 2, "__") == 0;
      if (!PyUnicode_Check(key) || dunder || PyModule_Check(value)) continue;
      if (c.keys.count(name + "." + attr) == 0) changed.push_back(name + "." + attr + " (added)");
    }
  }
  for (Probe& p : c.probes) {
    Probe now{p.key, p.fn, p.args, nullptr, {}};
    read_probe(now);
    const bool unchanged = p.value != nullptr ? same(p.value, now.value) : now.error == p.error;
    if (!unchanged) changed.push_back(p.key + " (replaced)");
    Py_CLEAR(now.value);
  }
  // A name still replaced or removed at the end is said once, as it ends: the dict watcher's
  // line for it as it happened adds nothing.
  std::set<std::string> ended;
  for (const std::string& line : changed) {
    for (const std::string_view tail :
         {std::string_view(" (replaced)"), std::string_view(" (removed)")}) {
      if (line.size() > tail.size() &&
          line.compare(line.size() - tail.size(), tail.size(), tail) == 0) {
        ended.insert(line.substr(0, line.size() - tail.size()));
      }
    }
  }
  for (const std::string& line : c.events) {
    bool said = false;
    for (const std::string_view tail : {std::string_view(" (replaced during the run)"),
                                        std::string_view(" (removed during the run)")}) {
      if (line.size() > tail.size() &&
          line.compare(line.size() - tail.size(), tail.size(), tail) == 0) {
        said = said || ended.count(line.substr(0, line.size() - tail.size())) != 0;
      }
    }
    if (!said) changed.push_back(line);
  }
  changed.insert(changed.end(), c.refused.begin(), c.refused.end());
  dispatcher_changes(c, changed);
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  if (after == nullptr) return changed;  // the names only: the settings are read in Python
  std::vector<std::string> settings;
  for (const auto& [name, was] : c.settings) {
    auto it = after->find(name);
    const std::string now = it == after->end() ? "gone" : it->second;
    if (now != was) settings.push_back(name + " (was " + was + ", now " + now + ")");
  }
  changed.insert(changed.end(), settings.begin(), settings.end());
  return changed;
}

// The probes read again while the driver checks an answer (issue 50): a hook or lever that runs
// code during a check (a gc callback, a signal handler and its timer, an unraisable hook) need not
// be there when the run ends, but it is there while the check it bends runs.
void probes_at_check() {
  Capture& c = capture();
  if (!c.taken || !c.recording) return;
  for (Probe& p : c.probes) {
    Probe now{p.key, p.fn, p.args, nullptr, {}};
    read_probe(now);
    const bool unchanged = p.value != nullptr ? same(p.value, now.value) : now.error == p.error;
    Py_CLEAR(now.value);
    if (!unchanged) note(c, p.key + " (changed while gpumeter checked an answer)");
  }
}

}  // namespace
}  // namespace watching

void watch_at_check() {
  watching::probes_at_check();
}

using watching::differing_keys;
using watching::digest_dump;

std::vector<std::string> watch_changes(const std::map<std::string, std::string>& settings_after) {
  return watching::watch_changes_impl(&settings_after);
}

std::optional<std::vector<std::string>> watched_names_changed() {
  if (!watching::capture().taken) return std::nullopt;
  return watching::watch_changes_impl(nullptr);
}

void bind_watch(nb::module_& m) {
  m.def("watch_capture", &watching::watch_capture, nb::arg("entries"), nb::arg("settings"),
        nb::arg("probes") = std::vector<nb::object>{},
        nb::arg("classes") = std::vector<nb::object>{}, nb::arg("dispatcher") = nb::none(),
        "Captures, once per process, what the tamper check watches (B11), kept in compiled "
        "memory: `entries` (key, object[, function]) by strong reference, and each function's "
        "code and defaults; `settings` {name: text}; `probes` (key, callable, args) read now and "
        "again after; `classes` whose attributes replaced are audited; `dispatcher` (a callable "
        "listing PyTorch's operators, one dumping one's registrations) digested. Installs an "
        "audit hook that records hooks set from now on. A second call is refused, and reported.");
  m.def("watch_changes", &watch_changes, nb::arg("settings_after"),
        "What changed since watch_capture, each resolved again here: 'X (replaced)', "
        "'X (removed)', 'X (its code or defaults replaced)', 'X (added)', the hooks the audit "
        "hook saw set, the operators whose kernels changed, then 'NAME (was A, now B)' for each "
        "setting.");
  m.def(
      "watch_dispatch_keys",
      [](const std::string& before, const std::string& after) {
        return differing_keys(digest_dump(before), digest_dump(after));
      },
      nb::arg("before"), nb::arg("after"),
      "The dispatch keys whose registrations differ between two texts of "
      "torch._C._dispatch_dump (the digest watch_changes compares).");
}

}  // namespace gpumeter::python
