// every input the plugin refuses at load, one row each: the model must not load, and MuJoCo's
// load error must name the key (or the field) and, for a limit, the value and the limit (README,
// "Limits"). Config keys of the terrain, the sensors' keys, bed files, meshes, the model's options.
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

namespace {

using mjg_test::LoadXml;
using mjg_test::TerrainXml;

struct Refused {
  std::string what;               // the input, in words
  std::string xml;                // the model
  std::vector<std::string> says;  // what the load error holds: the key first, then value, limit
};

// the small bed with these keys replaced
std::string WithKeys(const std::map<std::string, std::string>& keys) {
  auto config = mjg_test::SmallBed();
  for (const auto& [key, value] : keys) config[key] = value;
  return TerrainXml(config, mjg_test::WalledBox(0.045));
}

// a row for one terrain key: the error names the key
Refused Key(const std::string& key, const std::string& value, const std::string& what,
            std::vector<std::string> also = {}) {
  also.insert(also.begin(), "'" + key + "'");
  return {key + "='" + value + "' (" + what + ")", WithKeys({{key, value}}), also};
}

// the small bed with a height-map sensor of this config and the given wrench sensor MJCF
std::string SensorXml(const std::map<std::string, std::string>& heightmap,
                      const std::string& wrench = "<plugin plugin=\"mjgranular.wrench\" "
                                                  "objtype=\"body\" objname=\"box\"/>") {
  std::string config;
  for (const auto& [k, v] : heightmap) config += "<config key=\"" + k + "\" value=\"" + v + "\"/>";
  return "<mujoco><option timestep=\"0.002\"/><extension>"
         "<plugin plugin=\"mjgranular.terrain\"><instance name=\"sand\">"
         "<config key=\"fill\" value=\"-0.04 -0.04 0.005  0.04 0.04 0.04\"/>"
         "<config key=\"radius\" value=\"0.004\"/></instance></plugin>"
         "<plugin plugin=\"mjgranular.heightmap\"><instance name=\"hm\">" + config +
         "</instance></plugin><plugin plugin=\"mjgranular.wrench\"/></extension>"
         "<worldbody><plugin instance=\"sand\"/>" + mjg_test::WalledBox(0.045) +
         "<body name=\"box\" pos=\"0 0 0.06\"><freejoint/>"
         "<geom type=\"box\" size=\"0.012 0.012 0.012\"/></body></worldbody>"
         "<sensor><plugin name=\"height\" instance=\"hm\"/>" + wrench + "</sensor></mujoco>";
}

const std::map<std::string, std::string> kHeightmap = {{"region", "-0.04 -0.04 0.04 0.04"},
                                                       {"size", "2 2"}};

// a height-map row: these keys over a good config
Refused Heightmap(const std::map<std::string, std::string>& keys, const std::string& what,
                  std::vector<std::string> says) {
  auto config = kHeightmap;
  for (const auto& [k, v] : keys) config[k] = v;
  return {"heightmap: " + what, SensorXml(config), says};
}

// a bed file in the test's temporary folder: header, then n grains at `at`, at rest, radius 4 mm;
// `declared` is the count the header gives
std::string BedFile(const std::string& name, int32_t declared, int n, float at[3]) {
  std::string path = ::testing::TempDir() + "mjg_refused_" + name + ".mjgbed";
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_TRUE(f) << path;
  if (!f) return path;
  const char magic[8] = {'M', 'J', 'G', 'B', 'E', 'D', 0, 0};
  const uint32_t version = 2, flags = 0, model = 0;
  const double radius = 0.004;
  std::fwrite(magic, 1, 8, f);
  std::fwrite(&version, 4, 1, f);  // x86: little-endian already
  std::fwrite(&flags, 4, 1, f);
  std::fwrite(&declared, 4, 1, f);
  std::fwrite(&model, 4, 1, f);
  std::fwrite(&radius, 8, 1, f);
  const float zero[3] = {0, 0, 0}, r = 0.004f;
  for (int i = 0; i < n; i++) std::fwrite(at, 4, 3, f);
  for (int i = 0; i < 2 * n; i++) std::fwrite(zero, 4, 3, f);  // velocities, spins
  for (int i = 0; i < n; i++) std::fwrite(&r, 4, 1, f);
  std::fclose(f);
  return path;
}

// a row for a bed file
Refused Bed(const std::string& path, const std::string& what, std::vector<std::string> also) {
  also.insert(also.begin(), "'bed_file'");
  return {"bed_file: " + what,
          TerrainXml({{"bed_file", path}, {"radius", "0.004"}}, mjg_test::WalledBox(0.045)),
          also};
}

// a 0.5 m box mesh on a free body, sdf grids at this node spacing
std::string MeshXml(const std::string& sdf_cell) {
  return "<mujoco><asset><mesh name=\"big\" vertex=\"0 0 0 0.5 0 0 0 0.5 0 0.5 0.5 0 0 0 0.5 "
         "0.5 0 0.5 0 0.5 0.5 0.5 0.5 0.5\"/></asset><extension>"
         "<plugin plugin=\"mjgranular.terrain\"><instance name=\"sand\">"
         "<config key=\"fill\" value=\"-0.02 -0.02 0.6  0.02 0.02 0.64\"/>"
         "<config key=\"radius\" value=\"0.004\"/>"
         "<config key=\"sdf_cell\" value=\"" + sdf_cell + "\"/></instance></plugin></extension>"
         "<worldbody><plugin instance=\"sand\"/><body name=\"b\"><freejoint/>"
         "<geom type=\"mesh\" mesh=\"big\"/></body></worldbody></mujoco>";
}

std::vector<Refused> Rows() {
  std::vector<Refused> rows = {
    // one key's value out of its range, or not a value of its kind
    Key("radius", "-0.004", "negative radius"),
    Key("radius", "0", "zero radius"),
    Key("radius", "abc", "non-numeric"),
    Key("radius", "0.004x", "trailing junk"),
    Key("radius", "0.005 0.004", "rmin above rmax"),
    Key("radius", "0.001 0.0041", "rmax over 4 rmin"),
    Key("radius", "0.003 0.004 0.005", "three numbers"),
    Key("radius", "0 0.004", "zero rmin"),
    Key("radius", "nan", "not finite"),
    Key("radius", "inf", "not finite"),
    Key("radius", "1e-300", "zero as a float", {"1e-300"}),
    Key("radius", "0x1p-8", "a hex float", {"0x1p-8"}),
    Key("rolling_friction", "-0.1", "negative rolling friction"),
    Key("torsional_friction", "x", "non-numeric"),
    Key("color", "spinning", "unknown colour"),
    Key("density", "-2500", "negative density"),
    Key("density", "heavy", "non-numeric"),
    Key("density", "1e-300", "zero as a float", {"1e-300"}),
    Key("friction", "-0.1", "negative friction"),
    Key("friction", "0x1p-1", "a hex float"),
    Key("timestep", "0", "zero timestep"),
    Key("timestep", "1e-3s", "unit suffix"),
    Key("timestep", "1e-300", "zero as a float"),
    Key("timestep", "1e-7", "20,000 substeps per 2 ms step", {"1e-07", "10000"}),
    Key("iterations", "0", "no iterations"),
    Key("iterations", "12.5", "not an integer"),
    Key("baumgarte", "1.5", "above 1"),
    Key("count", "12.5", "not an integer"),
    Key("count", "-5", "negative count"),
    Key("count", "100000000", "above the solver's 2^26 grains"),
    Key("count", "10", "fill larger than count allows"),
    Key("count", "30000000", "a plugin_state beyond MuJoCo's int count"),
    Key("device", "-1", "negative device"),
    Key("device", "0.5", "not an integer"),
    Key("device", "1024", "above the largest index"),
    Key("seed", "-1", "negative seed"),
    Key("seed", "0x10", "not decimal"),
    Key("fill", "-0.04 -0.04 0.005 0.04 0.04", "five numbers"),
    Key("fill", "-0.04 -0.04 0.005 0.04 0.04 0.04 1", "seven numbers"),
    Key("fill", "0.04 -0.04 0.005 -0.04 0.04 0.04", "empty box, x"),
    Key("fill", "-0.04 -0.04 0.04 0.04 0.04 0.04", "empty box, z"),
    Key("fill", "-0.04 -0.04 0 0.04 0.04 0.005", "thinner than a grain"),
    Key("fill", "-0.04 -0.04 a 0.04 0.04 0.04", "non-numeric"),
    Key("fill", "-0x1p-5 -0.04 0.005 0.04 0.04 0.04", "a hex float"),
    Key("fill", "-5e6 -5e6 -5e6 5e6 5e6 5e6", "more grains than a 64-bit product holds",
        {"67108864"}),
    Key("fill", "-1e300 -1e300 0 1e300 1e300 0.1", "more grains than an integer holds",
        {"67108864"}),
    Key("domain", "0.1 0.1 0.1 0 0 0", "empty domain"),
    Key("domain", "-0.01 -0.01 0 0.01 0.01 0.1", "fill outside the domain"),
    Key("backend", "gpu", "unknown backend"),
    Key("backend", "cpu cuda", "two words"),
    Key("sdf_cell", "0", "zero cell"),
    Key("sdf_cell", "-0.004", "negative cell"),
    Key("sdf_cell", "2", "above 1 m"),
    Key("sdf_cell", "4mm", "unit suffix"),
    Key("coupling", "both", "unknown coupling"),
    Key("coupling", "two-way one-way", "two words"),
    Key("cyclic_z", "0.1 0", "empty range"),
    Key("cyclic_z", "0 0.1 0.2", "three numbers"),
    Key("cyclic_z", "0 0.015", "shorter than two grain diameters"),
    Key("cyclic_z", "0.01 0.2", "fill below the range"),
    Key("settle", "-0.1", "negative settling time"),
    Key("settle", "2000", "above 1000 s"),
    Key("settle", "1s", "unit suffix"),
    Key("settle", "1000", "2e7 solver passes of settling", {"1000", "1000000"}),
    Key("deterministic", "yes", "not true or false"),
    Key("deterministic", "1", "a number"),
    Key("bed_file", "/nonexistent/bed.mjgbed", "missing file"),
    Key("model", "dpm", "unknown model"),
    Key("model", "dem pj", "two words"),
    Key("broadphase", "grid", "unknown broadphase"),
    Key("broadphase", "hash sorted", "two words"),
    Key("broadphase", "0", "a number"),
    Key("law", "linear", "unknown law"),
    Key("youngs", "0", "zero modulus"),
    Key("youngs", "-5e7", "negative modulus"),
    Key("poisson", "0.6", "above 0.5"),
    Key("poisson", "-1", "at -1"),
    Key("restitution", "0", "zero restitution"),
    Key("restitution", "1.2", "above 1"),
    Key("stiffness", "0", "zero stiffness"),
    Key("stiffness", "-1e4", "negative stiffness"),
    {"an unknown key", WithKeys({{"radiu", "0.004"}}), {"'plugin:radiu'"}},

    // keys together
    {"neither fill nor bed_file nor count", TerrainXml({{"radius", "0.004"}}), {"'fill'"}},
    {"iterations 1000 at 200 substeps per step",
     WithKeys({{"timestep", "1e-5"}, {"iterations", "1000"}}),
     {"'iterations'", "1000", "100000"}},
    {"iterations 10000 at 20,000 substeps per step",
     WithKeys({{"timestep", "1e-7"}, {"iterations", "10000"}}), {"'timestep'", "10000"}},
    {"density with a grain mass a float cannot invert", WithKeys({{"density", "1e-37"}}),
     {"density", "1e-37"}},

    // the model's options, as the solver receives them
    {"option gravity beyond a float",
     TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045),
                "<option timestep=\"0.002\" gravity=\"0 0 -1e39\"/>"),
     {"gravity", "not finite"}},

    // meshes: a signed distance grid beyond the node limit (2^25)
    {"sdf_cell: a 77 M node grid of a 0.5 m mesh", MeshXml("0.0012"),
     {"'sdf_cell'", "0.0012", "33554432"}},

    // the sensors
    Heightmap({{"terrain", "gravel"}}, "unknown terrain", {"'terrain'"}),
    Heightmap({{"region", "0 0 0 0.1"}}, "empty region", {"'region'"}),
    Heightmap({{"region", "0 0 0x1p-4 0.1"}}, "a hex float", {"'region'"}),
    Heightmap({{"size", "0 3"}}, "no cells", {"'size'"}),
    Heightmap({{"size", "4294967296 4294967296"}}, "2^64 cells", {"'size'", "16777216"}),
    Heightmap({{"size", "99999999999999999999 1"}}, "beyond a 64-bit integer",
              {"'size'", "16777216"}),
    Heightmap({{"size", "8192 4096"}}, "2^25 cells", {"'size'", "16777216"}),
    Heightmap({{"empty", "x"}}, "non-numeric empty", {"'empty'"}),
    {"heightmap: no region", SensorXml({{"size", "2 2"}}), {"'region'"}},
    {"wrench: unknown body",
     SensorXml(kHeightmap, "<plugin plugin=\"mjgranular.wrench\"><config key=\"body\" "
                           "value=\"nobody\"/></plugin>"),
     {"'body'"}},
    {"wrench: unknown terrain",
     SensorXml(kHeightmap, "<plugin plugin=\"mjgranular.wrench\"><config key=\"terrain\" "
                           "value=\"gravel\"/><config key=\"body\" value=\"box\"/></plugin>"),
     {"'terrain'"}},
    {"wrench: no body at all", SensorXml(kHeightmap, "<plugin plugin=\"mjgranular.wrench\"/>"),
     {"'body'"}},
  };

  // bed files: a declared count beyond the solver's 2^26 grains, grains all at one point, and
  // files that are not regular files (a FIFO would block the load forever, a device never ends)
  float at[3] = {0, 0, 0.1f};
  rows.push_back(Bed(BedFile("count", (1 << 26) + 1, 0, at), "2^26 + 1 grains declared",
                     {"67108865", "67108864"}));
  rows.push_back(Bed(BedFile("crowded", 600, 600, at), "600 grains at one point", {"600", "512"}));
  std::string fifo = ::testing::TempDir() + "mjg_refused_fifo.mjgbed";
  std::remove(fifo.c_str());
  EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0) << fifo;
  rows.push_back(Bed(fifo, "a FIFO", {"not a regular file"}));
  rows.push_back(Bed(::testing::TempDir(), "a directory", {"not a regular file"}));
  rows.push_back(Bed("/dev/zero", "a device", {"not a regular file"}));
  return rows;
}

TEST(Refusals, EveryBadInputIsRefusedAtLoadNamingItsKey) {
  for (const Refused& row : Rows()) {
    std::string error;
    auto m = LoadXml(row.xml, &error);
    EXPECT_FALSE(m) << row.what << ": loaded";
    for (const std::string& text : row.says) {
      EXPECT_NE(error.find(text), std::string::npos)
          << row.what << ": the load error does not say " << text << ":\n" << error;
    }
  }
}

}  // namespace
