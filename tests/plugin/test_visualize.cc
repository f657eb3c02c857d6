// plugin/visualize.c: grains are drawn into the scene as spheres, never past maxgeom.
#include <string>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

namespace {

using mjg_test::DataPtr;
using mjg_test::GrainsOf;
using mjg_test::LoadXml;
using mjg_test::TerrainXml;

int SpheresDrawn(const mjModel* m, mjData* d, int maxgeom, int* ngeom) {
  mjvScene scn;
  mjv_defaultScene(&scn);
  mjv_makeScene(m, &scn, maxgeom);
  mjvOption opt;
  mjv_defaultOption(&opt);
  mjvCamera cam;
  mjv_defaultCamera(&cam);
  mjv_updateScene(m, d, &opt, nullptr, &cam, mjCAT_ALL, &scn);
  int spheres = 0;
  for (int i = 0; i < scn.ngeom; i++) {
    spheres += scn.geoms[i].type == mjGEOM_SPHERE && scn.geoms[i].category == mjCAT_DECOR;
  }
  *ngeom = scn.ngeom;
  mjv_freeScene(&scn);
  return spheres;
}

TEST(Visualize, DrawsEveryGrainWhenThereIsRoom) {
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  int n = GrainsOf(m.get(), d.get()).n(), ngeom;
  EXPECT_EQ(SpheresDrawn(m.get(), d.get(), n + 100, &ngeom), n);
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

}  // namespace
