// many coupled bodies: time per mj_step of N free rocks (1 cm cubes, 2.6 g) resting on a sand bed
// of 6,075 grains (4 mm, 0.67 g), two-way coupled: what the coupling costs as the bodies, and
// nv = 6 N, grow. N = 0 is the bed alone.
//
//   bench_bodies [--bodies 0,1,10,100,1000] [--warmup W] [--steps S]
//
// The bed settles once at load (0.3 s, without the rocks); for each N the rocks fall onto it for
// W untimed steps (default 200: 0.1 s), then S steps (default 200) are timed one by one: the mean
// and the median (less sensitive to other load on a shared machine). The rocks collide
// with the floor but not with each other (conaffinity 0), so that MuJoCo's own contact solve of
// rocks touching their neighbours does not blur what the coupling costs. One json line per N;
// thread count: OMP_NUM_THREADS.
#define _DEFAULT_SOURCE  // clock_gettime, getloadavg
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#define MAX_LIST 16
#define BED 0.4       // bed side [m]
#define BED_TOP 0.03  // top of the fill box [m]: three layers of 4 mm grains
#define ROCK 0.005    // rock half size [m]

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// the scene's MJCF (malloc'd): the bed, the floor, n rocks on a square grid above the bed
static char* scene(int n) {
  size_t size = 4096 + 256 * (size_t)n;
  char* xml = (char*)malloc(size);
  if (!xml) return NULL;
  int len = snprintf(
      xml, size,
      "<mujoco><option timestep=\"0.0005\"/>"
      "<extension><plugin plugin=\"mjgranular.terrain\"><instance name=\"sand\">"
      "<config key=\"fill\" value=\"%g %g 0.004 %g %g %g\"/>"
      "<config key=\"domain\" value=\"%g %g 0 %g %g 0.5\"/>"
      "<config key=\"radius\" value=\"0.004\"/><config key=\"settle\" value=\"0.3\"/>"
      "</instance></plugin></extension>"
      "<worldbody><plugin instance=\"sand\"/><geom type=\"plane\" size=\"1 1 0.1\"/>",
      -BED / 2, -BED / 2, BED / 2, BED / 2, BED_TOP, -BED / 2, -BED / 2, BED / 2, BED / 2);
  int side = (int)ceil(sqrt((double)n));
  double pitch = (BED - 0.02) / side;
  for (int i = 0; i < n; i++) {
    double x = -BED / 2 + 0.01 + pitch * (i % side + 0.5);
    double y = -BED / 2 + 0.01 + pitch * (i / side + 0.5);
    len += snprintf(xml + len, size - len,
                    "<body pos=\"%g %g %g\"><freejoint/>"
                    "<geom type=\"box\" size=\"%g %g %g\" density=\"2600\" "
                    "conaffinity=\"0\"/></body>",
                    x, y, BED_TOP + 2 * ROCK, ROCK, ROCK, ROCK);
  }
  snprintf(xml + len, size - len, "</worldbody></mujoco>");
  return xml;
}

static mjModel* load_scene(const char* xml) {
  mjVFS vfs;
  char err[1024] = "";
  mj_defaultVFS(&vfs);
  mj_addBufferVFS(&vfs, "scene.xml", xml, (int)strlen(xml));
  mjModel* m = mj_loadXML("scene.xml", &vfs, err, sizeof(err));
  mj_deleteVFS(&vfs);
  if (!m) fprintf(stderr, "bench_bodies: %s\n", err);
  return m;
}

// qsort order of doubles, ascending
static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// comma-separated integers into list; their count
static int parse_ints(const char* s, int* list) {
  int n = 0;
  for (char* end; *s && n < MAX_LIST; s = *end ? end + 1 : end) {
    list[n++] = (int)strtol(s, &end, 10);
  }
  return n;
}

int main(int argc, char** argv) {
  int bodies[MAX_LIST] = {0, 1, 10, 100, 1000}, nbodies = 5, warmup = 200, steps = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--bodies")) nbodies = parse_ints(argv[i + 1], bodies);
    else if (!strcmp(argv[i], "--warmup")) warmup = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--steps")) steps = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
    else {
      fprintf(stderr, "bench_bodies: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  mj_loadPluginLibrary(MJGRANULAR_PLUGIN_PATH);
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  fprintf(stderr, "bench_bodies: %d threads, load %.2f %.2f %.2f\n", omp_get_max_threads(),
          load[0], load[1], load[2]);

  for (int b = 0; b < nbodies; b++) {
    char* xml = scene(bodies[b]);
    mjModel* m = xml ? load_scene(xml) : NULL;
    free(xml);
    if (!m) return 1;
    mjData* d = mj_makeData(m);
    for (int k = 0; k < warmup; k++) mj_step(m, d);
    double* times = (double*)malloc(steps * sizeof(double));
    if (!times) return 1;
    double total = 0;
    for (int k = 0; k < steps; k++) {
      double start = now();
      mj_step(m, d);
      times[k] = now() - start;
      total += times[k];
    }
    qsort(times, steps, sizeof(double), compare_doubles);
    double median = steps % 2 ? times[steps / 2] : 0.5 * (times[steps / 2 - 1] + times[steps / 2]);
    free(times);

    // where the rocks rest: their centres' lowest and highest height
    char rocks[96] = "";
    if (m->nbody > 1) {
      double low = INFINITY, high = -INFINITY;
      for (int i = 1; i < m->nbody; i++) {
        low = fmin(low, d->xipos[3 * i + 2]);
        high = fmax(high, d->xipos[3 * i + 2]);
      }
      snprintf(rocks, sizeof(rocks), ", \"rock_z_min_mm\": %.2f, \"rock_z_max_mm\": %.2f",
               1e3 * low, 1e3 * high);
    }
    getloadavg(load, 3);
    printf("{\"bodies\": %d, \"nv\": %d, \"warmup\": %d, \"steps\": %d, \"ms_per_step\": %.3f, "
           "\"median_ms\": %.3f%s, \"ncon\": %d, \"threads\": %d, \"load1\": %.2f}\n",
           bodies[b], (int)m->nv, warmup, steps, 1e3 * total / steps, 1e3 * median, rocks,
           d->ncon, omp_get_max_threads(), load[0]);
    fflush(stdout);
    mj_deleteData(d);
    mj_deleteModel(m);
  }
  return 0;
}
