// the library's registration (plugin/register.c): the plugins it registers with MuJoCo, and a
// forked child that steps grains after its parent has: libgomp's thread pool does not survive a
// fork, and a parallel region over it waited forever in the child (python's multiprocessing forks,
// gymnasium's async vector envs among them); the child computes on one thread.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

namespace {

using mjg_test::DataPtr;
using mjg_test::GrainsOf;
using mjg_test::LoadXml;
using mjg_test::ModelPtr;

TEST(Register, RegistersTheTerrainAndItsSensors) {
  mjg_test::LoadPlugin();
  for (const char* name : {"mjgranular.terrain", "mjgranular.heightmap", "mjgranular.wrench"}) {
    int slot = -1;
    EXPECT_NE(mjp_getPlugin(name, &slot), nullptr) << name;
    EXPECT_GE(slot, 0) << name;
  }
}

TEST(Register, ForkedChildStepsGrainsAfterTheParentHas) {
  // cpu named: a cuda context does not survive a fork either, and is no part of this
  auto config = mjg_test::SmallBed();
  config["backend"] = "cpu";
  std::string error;
  ModelPtr m = LoadXml(mjg_test::TerrainXml(config, mjg_test::WalledBox(0.04)), &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  for (int i = 0; i < 10; i++) mj_step(m.get(), d.get());  // the parent's openmp pool is up

  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(120);  // a hang ends the child by SIGALRM
    DataPtr c(mj_makeData(m.get()));
    for (int i = 0; i < 10; i++) mj_step(m.get(), c.get());
    mjg_test::Grains g = GrainsOf(m.get(), c.get());
    bool ok = g.n() > 100;
    for (int i = 0; i < g.n() && ok; i++) ok = std::isfinite(g.pos(i)[2]);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was ended by signal " << WTERMSIG(status)
                                 << (WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's grains were not stepped";
}

}  // namespace
