// helpers shared by the plugin tests: load libmjgranular.so once, build MJCF strings, load them
// through a virtual file system, and read the grains out of plugin_state.
#ifndef MJGRANULAR_TESTS_PLUGIN_MJG_TEST_UTIL_H_
#define MJGRANULAR_TESTS_PLUGIN_MJG_TEST_UTIL_H_

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

namespace mjg_test {

// state layout (plugin/state.h): header of 4, positions, velocities, angular velocities,
// orientations, radii, types, wrenches, contact state
constexpr int kHeader = 4;
// mjtNums per grain of positions, velocities and angular velocities (3 each), orientations (4),
// radii (1) and types (1)
constexpr int kGrainNums = 15;
// mjtNums of contact state per grain: counts (2 int32), 16 grain + 4 shape contact slots with an
// int32 partner, a float32 impulse and a float32 angular impulse (x, y, z) each: 568 bytes
constexpr int kContactPerGrain = 71;

// load the plugin library once per process
inline void LoadPlugin() {
  static bool loaded = false;
  if (!loaded) {
    mj_loadPluginLibrary(MJGRANULAR_PLUGIN_PATH);
    loaded = true;
  }
}

// a count the plugin library exports (mjgranular_settle_runs, mjgranular_grid_builds), or -1
inline long long LibraryCount(const char* function) {
  LoadPlugin();
  void* lib = dlopen(MJGRANULAR_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return -1;
  auto count = (long long (*)(void))dlsym(lib, function);
  long long n = count ? count() : -1;
  dlclose(lib);
  return n;
}

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;

// the backend the plugin tests ask for: MJG_TEST_BACKEND (cpu, cuda or auto; the ctest entry
// plugin_tests_on_cuda reruns them with cuda where a device is usable), empty when unset
inline std::string TestBackend() {
  const char* b = std::getenv("MJG_TEST_BACKEND");
  return b ? b : "";
}

// xml with config key backend = TestBackend() added to every mjgranular.terrain instance that
// does not set backend itself (a test that names a backend keeps it); unchanged when unset
inline std::string WithTestBackend(const std::string& xml) {
  const std::string backend = TestBackend();
  if (backend.empty()) return xml;
  std::string out = xml;
  const std::string plugin = "<plugin plugin=\"mjgranular.terrain\"";
  for (size_t at = out.find(plugin); at != std::string::npos; at = out.find(plugin, at + 1)) {
    size_t end = out.find("</plugin>", at);
    if (end == std::string::npos) break;
    for (size_t in = out.find("<instance", at); in != std::string::npos && in < end;
         in = out.find("<instance", in + 1)) {
      size_t open = out.find('>', in), close = out.find("</instance>", in);
      if (open == std::string::npos || close == std::string::npos) break;
      if (out[open - 1] == '/') continue;  // no config of its own: left at its default
      if (out.substr(open, close - open).find("key=\"backend\"") != std::string::npos) continue;
      const std::string key = "<config key=\"backend\" value=\"" + backend + "\"/>";
      out.insert(open + 1, key);
      end += key.size();
    }
  }
  return out;
}

// compile an MJCF string through a virtual file system; the load error goes to *error. with
// MJG_TEST_BACKEND set, its terrain instances use that backend (WithTestBackend)
inline ModelPtr LoadXml(const std::string& source, std::string* error = nullptr) {
  LoadPlugin();
  const std::string xml = WithTestBackend(source);
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  mj_addBufferVFS(&vfs, "model.xml", xml.data(), static_cast<int>(xml.size()));
  char err[2048] = "";
  mjModel* m = mj_loadXML("model.xml", &vfs, err, sizeof(err));
  mj_deleteVFS(&vfs);
  if (error) *error = err;
  return ModelPtr(m);
}

// a terrain instance with the given config keys (key -> value), plus extra world body MJCF
inline std::string TerrainXml(const std::map<std::string, std::string>& config,
                              const std::string& world = "",
                              const std::string& option = "<option timestep=\"0.002\"/>") {
  std::string xml = "<mujoco>" + option + "<extension><plugin plugin=\"mjgranular.terrain\">"
                    "<instance name=\"sand\">";
  for (const auto& [key, value] : config) {
    xml += "<config key=\"" + key + "\" value=\"" + value + "\"/>";
  }
  xml += "</instance></plugin></extension><worldbody><plugin instance=\"sand\"/>" + world +
         "</worldbody></mujoco>";
  return xml;
}

// a floor and four walls around [-h, h]^2, walls of height 2 h
inline std::string WalledBox(double h) {
  char buf[1024];
  double t = 0.01, z = h;
  std::snprintf(buf, sizeof(buf),
    "<geom name=\"floor\" type=\"plane\" size=\"1 1 0.1\"/>"
    "<geom type=\"box\" pos=\"%g 0 %g\" size=\"%g %g %g\"/>"
    "<geom type=\"box\" pos=\"%g 0 %g\" size=\"%g %g %g\"/>"
    "<geom type=\"box\" pos=\"0 %g %g\" size=\"%g %g %g\"/>"
    "<geom type=\"box\" pos=\"0 %g %g\" size=\"%g %g %g\"/>",
    h + t, z, t, h + 2 * t, z, -h - t, z, t, h + 2 * t, z,
    h + t, z, h + 2 * t, t, z, -h - t, z, h + 2 * t, t, z);
  return buf;
}

// a small bed in a walled box: a few hundred grains of radius 4 mm
inline std::map<std::string, std::string> SmallBed() {
  return {{"fill", "-0.04 -0.04 0.005  0.04 0.04 0.04"}, {"radius", "0.004"}};
}

// views of one instance's plugin_state
struct Grains {
  mjtNum* state;
  int cap;
  int n() const { return static_cast<int>(state[0]); }
  mjtNum* pos(int i) const { return state + kHeader + 3 * i; }
  mjtNum* vel(int i) const { return state + kHeader + 3 * cap + 3 * i; }
  mjtNum* angvel(int i) const { return state + kHeader + 6 * cap + 3 * i; }
  mjtNum* orient(int i) const { return state + kHeader + 9 * cap + 4 * i; }
  mjtNum* radius(int i) const { return state + kHeader + 13 * cap + i; }
  mjtNum* type(int i) const { return state + kHeader + 14 * cap + i; }
  mjtNum* wrench(int body) const { return state + kHeader + kGrainNums * cap + 6 * body; }
  // the contact state, after the wrenches of nbody bodies
  mjtNum* contacts(int nbody) const { return wrench(nbody); }
};

// the grains of instance 0 whose grains have at most `spheres` spheres each (mesh grains: key
// clump_spheres); capacity from the state size
inline Grains GrainsOf(const mjModel* m, mjData* d, int spheres = 1) {
  int size = m->plugin_statenum[0];
  int cap = (size - kHeader - 6 * m->nbody) / (kGrainNums + spheres * kContactPerGrain);
  return Grains{d->plugin_state + m->plugin_stateadr[0], cap};
}

// the instance's plugin_state as a vector
inline std::vector<mjtNum> StateCopy(const mjModel* m, const mjData* d) {
  const mjtNum* s = d->plugin_state + m->plugin_stateadr[0];
  return std::vector<mjtNum>(s, s + m->plugin_statenum[0]);
}

// nthread threads that each compile xml at once, make an mjData and step it `steps` times: each
// thread's plugin_state at the end (empty where its model did not compile)
inline std::vector<std::vector<mjtNum>> StatesOfThreadsCompiling(const std::string& xml,
                                                                 int nthread, int steps) {
  std::vector<std::vector<mjtNum>> states(nthread);
  std::vector<std::thread> threads;
  for (int t = 0; t < nthread; t++) {
    threads.emplace_back([&, t] {
      ModelPtr m = LoadXml(xml);
      if (!m) return;
      DataPtr d(mj_makeData(m.get()));
      for (int i = 0; i < steps; i++) mj_step(m.get(), d.get());
      states[t] = StateCopy(m.get(), d.get());
    });
  }
  for (auto& th : threads) th.join();
  return states;
}

// mju_user_warning capture for the lifetime of the object
class WarningCapture {
 public:
  WarningCapture() {
    Messages().clear();
    previous_ = mju_user_warning;
    mju_user_warning = [](const char* msg) { Messages().push_back(msg); };
  }
  ~WarningCapture() { mju_user_warning = previous_; }
  static std::vector<std::string>& Messages() {
    static std::vector<std::string> messages;
    return messages;
  }
  std::string All() const {
    std::string all;
    for (const auto& m : Messages()) all += m + "\n";
    return all;
  }

 private:
  void (*previous_)(const char*);
};

}  // namespace mjg_test

#endif  // MJGRANULAR_TESTS_PLUGIN_MJG_TEST_UTIL_H_
