// plugin/visualize.c: grains are drawn into the scene as spheres, never past maxgeom, coloured
// by height (higher is lighter), by speed (faster is hotter: more red, less blue) or in one
// colour, as the keys color and color_range say.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

namespace {

using mjg_test::DataPtr;
using mjg_test::Grains;
using mjg_test::GrainsOf;
using mjg_test::LoadXml;
using mjg_test::ModelPtr;
using mjg_test::TerrainXml;

// a grain sphere as drawn: the grain it stands for and its colour
struct Drawn {
  int grain;
  float rgba[4];
  float brightness() const { return rgba[0] + rgba[1] + rgba[2]; }
  float heat() const { return rgba[0] - rgba[2]; }
};

// the small bed with extra keys
ModelPtr SmallBedWith(const std::map<std::string, std::string>& keys, std::string* error) {
  auto config = mjg_test::SmallBed();
  for (const auto& [key, value] : keys) config[key] = value;
  return LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), error);
}

// update a scene of maxgeom geoms from d; the grain spheres drawn (matched to grains by
// position) into *drawn when given, the scene's geom count into *ngeom
int SpheresDrawn(const mjModel* m, mjData* d, int maxgeom, int* ngeom,
                 std::vector<Drawn>* drawn = nullptr) {
  mjvScene scn;
  mjv_defaultScene(&scn);
  mjv_makeScene(m, &scn, maxgeom);
  mjvOption opt;
  mjv_defaultOption(&opt);
  mjvCamera cam;
  mjv_defaultCamera(&cam);
  mjv_updateScene(m, d, &opt, nullptr, &cam, mjCAT_ALL, &scn);
  Grains g = GrainsOf(m, d);
  int spheres = 0;
  for (int i = 0; i < scn.ngeom; i++) {
    const mjvGeom& geom = scn.geoms[i];
    if (geom.type != mjGEOM_SPHERE || geom.category != mjCAT_DECOR) continue;
    spheres++;
    if (!drawn) continue;
    Drawn s{-1, {geom.rgba[0], geom.rgba[1], geom.rgba[2], geom.rgba[3]}};
    for (int k = 0; k < g.n() && s.grain < 0; k++) {
      const mjtNum* p = g.pos(k);
      if (std::abs(p[0] - geom.pos[0]) + std::abs(p[1] - geom.pos[1]) +
          std::abs(p[2] - geom.pos[2]) < 1e-6) {
        s.grain = k;
      }
    }
    drawn->push_back(s);
  }
  *ngeom = scn.ngeom;
  mjv_freeScene(&scn);
  return spheres;
}

// grain k moves at speed k * step in a direction that turns with k
void SetRisingSpeeds(const mjModel* m, mjData* d, double step) {
  Grains g = GrainsOf(m, d);
  for (int k = 0; k < g.n(); k++) {
    double a = 2.4 * k, b = 0.7 * k;
    mjtNum dir[3] = {std::cos(a) * std::cos(b), std::sin(a) * std::cos(b), std::sin(b)};
    for (int j = 0; j < 3; j++) g.vel(k)[j] = step * k * dir[j];
  }
}

double Speed(const Grains& g, int k) { return mju_norm3(g.vel(k)); }

TEST(Visualize, DrawsEveryGrainWhenThereIsRoom) {
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  int n = GrainsOf(m.get(), d.get()).n(), ngeom;
  std::vector<Drawn> drawn;
  EXPECT_EQ(SpheresDrawn(m.get(), d.get(), n + 100, &ngeom, &drawn), n);
  // each grain once, where it is
  std::vector<int> seen(n, 0);
  for (const Drawn& s : drawn) {
    ASSERT_GE(s.grain, 0) << "a sphere away from every grain";
    seen[s.grain]++;
  }
  EXPECT_EQ(*std::min_element(seen.begin(), seen.end()), 1);
  EXPECT_EQ(*std::max_element(seen.begin(), seen.end()), 1);
}

TEST(Visualize, NeverPastMaxgeom) {
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  int n = GrainsOf(m.get(), d.get()).n();
  mjg_test::WarningCapture warnings;
  for (int maxgeom : {1, 7, 50, n / 2}) {
    int ngeom;
    int spheres = SpheresDrawn(m.get(), d.get(), maxgeom, &ngeom);
    EXPECT_LE(ngeom, maxgeom);
    EXPECT_GT(spheres, 0) << "maxgeom " << maxgeom;
  }
  // one note from the plugin that the scene is short, not one per frame (mujoco adds its own)
  int notes = 0;
  for (const auto& msg : warnings.Messages()) notes += msg.find("mjgranular") != std::string::npos;
  EXPECT_EQ(notes, 1) << warnings.All();
}

TEST(Visualize, HigherGrainsAreLighterByDefault) {
  std::string error;
  auto m = SmallBedWith({}, &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  Grains g = GrainsOf(m.get(), d.get());
  int ngeom;
  std::vector<Drawn> drawn;
  ASSERT_EQ(SpheresDrawn(m.get(), d.get(), g.n() + 100, &ngeom, &drawn), g.n());

  // brightness never falls as height rises; the top layer is lighter than the bottom one
  std::sort(drawn.begin(), drawn.end(),
            [&](const Drawn& a, const Drawn& b) { return g.pos(a.grain)[2] < g.pos(b.grain)[2]; });
  for (size_t i = 1; i < drawn.size(); i++) {
    EXPECT_GE(drawn[i].brightness(), drawn[i - 1].brightness() - 1e-6f)
        << "grain at z " << g.pos(drawn[i].grain)[2] << " darker than one at z "
        << g.pos(drawn[i - 1].grain)[2];
  }
  EXPECT_GT(drawn.back().brightness(), drawn.front().brightness() + 0.5f);
}

TEST(Visualize, FasterGrainsAreHotter) {
  std::string error;
  auto m = SmallBedWith({{"color", "speed"}}, &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  SetRisingSpeeds(m.get(), d.get(), 0.01);
  Grains g = GrainsOf(m.get(), d.get());
  int ngeom;
  std::vector<Drawn> drawn;
  ASSERT_EQ(SpheresDrawn(m.get(), d.get(), g.n() + 100, &ngeom, &drawn), g.n());

  // strictly hotter with every step up in speed
  std::sort(drawn.begin(), drawn.end(),
            [&](const Drawn& a, const Drawn& b) { return Speed(g, a.grain) < Speed(g, b.grain); });
  for (size_t i = 1; i < drawn.size(); i++) {
    EXPECT_GT(drawn[i].heat(), drawn[i - 1].heat())
        << "speed " << Speed(g, drawn[i].grain) << " not hotter than "
        << Speed(g, drawn[i - 1].grain);
  }
  // the resting grain is blue, the fastest red
  EXPECT_EQ(Speed(g, drawn.front().grain), 0);
  EXPECT_GT(drawn.front().rgba[2], drawn.front().rgba[0]);
  EXPECT_GT(drawn.back().rgba[0], drawn.back().rgba[2]);
}

TEST(Visualize, ColorRangeClampsTheRamp) {
  std::string error;
  auto m = SmallBedWith({{"color", "speed"}, {"color_range", "0.1 0.2"}}, &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  SetRisingSpeeds(m.get(), d.get(), 0.0011);  // no speed on a range end
  Grains g = GrainsOf(m.get(), d.get());
  ASSERT_GT(g.n() * 0.0011, 0.25) << "the bed needs grains above the range";
  int ngeom;
  std::vector<Drawn> drawn;
  ASSERT_EQ(SpheresDrawn(m.get(), d.get(), g.n() + 100, &ngeom, &drawn), g.n());

  // below the range: the cold end; above: the hot end; inside: strictly between, rising
  float cold = 0, hot = 0;
  for (const Drawn& s : drawn) {
    if (s.grain == 0) cold = s.heat();
    if (s.grain == g.n() - 1) hot = s.heat();
  }
  std::map<double, float> inside;
  for (const Drawn& s : drawn) {
    double v = Speed(g, s.grain);
    if (v <= 0.1) {
      EXPECT_EQ(s.heat(), cold) << "speed " << v;
    } else if (v >= 0.2) {
      EXPECT_EQ(s.heat(), hot) << "speed " << v;
    } else {
      EXPECT_GT(s.heat(), cold) << "speed " << v;
      EXPECT_LT(s.heat(), hot) << "speed " << v;
      inside[v] = s.heat();
    }
  }
  EXPECT_GT(inside.size(), 50u);
  for (auto it = std::next(inside.begin()); it != inside.end(); ++it) {
    EXPECT_GT(it->second, std::prev(it)->second) << "speed " << it->first;
  }
}

TEST(Visualize, FixedIsOneColour) {
  std::string error;
  auto m = SmallBedWith({{"color", "fixed"}}, &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  SetRisingSpeeds(m.get(), d.get(), 0.01);
  int ngeom, n = GrainsOf(m.get(), d.get()).n();
  std::vector<Drawn> drawn;
  ASSERT_EQ(SpheresDrawn(m.get(), d.get(), n + 100, &ngeom, &drawn), n);
  for (const Drawn& s : drawn) {
    for (int j = 0; j < 4; j++) EXPECT_EQ(s.rgba[j], drawn[0].rgba[j]);
  }
}

TEST(Visualize, ShortSceneKeepsTheColourOrder) {
  std::string error;
  auto m = SmallBedWith({{"color", "speed"}}, &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  SetRisingSpeeds(m.get(), d.get(), 0.01);
  Grains g = GrainsOf(m.get(), d.get());
  mjg_test::WarningCapture warnings;
  int ngeom, maxgeom = g.n() / 3;
  std::vector<Drawn> drawn;
  int spheres = SpheresDrawn(m.get(), d.get(), maxgeom, &ngeom, &drawn);
  EXPECT_LE(ngeom, maxgeom);
  EXPECT_GT(spheres, 10);
  for (size_t i = 1; i < drawn.size(); i++) {
    ASSERT_GE(drawn[i].grain, 0);
    if (Speed(g, drawn[i].grain) > Speed(g, drawn[i - 1].grain)) {
      EXPECT_GT(drawn[i].heat(), drawn[i - 1].heat());
    }
  }
}

TEST(Visualize, ColourKeysAreChecked) {
  const std::vector<std::pair<const char*, const char*>> bad = {
    {"color", "temperature"}, {"color", "speed height"}, {"color_range", "0.2 0.1"},
    {"color_range", "0.1 0.1"}, {"color_range", "1"}, {"color_range", "0 1 2"},
    {"color_range", "a b"},
  };
  for (const auto& [key, value] : bad) {
    std::string error;
    auto m = SmallBedWith({{key, value}}, &error);
    EXPECT_FALSE(m) << key << "='" << value << "' loaded";
    EXPECT_NE(error.find(std::string("'") + key + "'"), std::string::npos) << error;
  }
  const std::vector<std::pair<const char*, const char*>> good = {
    {"color", " speed "}, {"color", "height"}, {"color", "fixed"}, {"color_range", "-1 0.5"},
  };
  for (const auto& [key, value] : good) {
    std::string error;
    EXPECT_TRUE(SmallBedWith({{key, value}}, &error)) << key << "='" << value << "': " << error;
  }
}

}  // namespace
