// replays fuzz inputs through a fuzz target's LLVMFuzzerTestOneInput without libFuzzer, so that
// the seed corpus and the saved crash inputs run as a plain test with any compiler. Arguments:
// files or folders of files; it fails (through the target's abort or a sanitizer) on the input
// that breaks, named on stderr first.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// run one file; 0, or 1 when it cannot be read
static int replay(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* data = (uint8_t*)malloc(size > 0 ? (size_t)size : 1);
  int ok = data && size >= 0 && fread(data, 1, (size_t)size, f) == (size_t)size;
  fclose(f);
  // the input in a buffer of exactly its size, so asan sees a read past its end
  fprintf(stderr, "replay: %s%s\n", ok ? "" : "cannot read ", path);
  if (ok) LLVMFuzzerTestOneInput(data, (size_t)size);
  free(data);
  return !ok;
}

int main(int argc, char** argv) {
  int count = 0, bad = 0;
  for (int a = 1; a < argc; a++) {
    struct stat st;
    if (stat(argv[a], &st)) {
      fprintf(stderr, "replay: cannot read %s\n", argv[a]);
      bad = 1;
    } else if (!S_ISDIR(st.st_mode)) {
      bad |= replay(argv[a]);
      count++;
    } else {
      struct dirent** names;
      int n = scandir(argv[a], &names, NULL, alphasort);
      for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", argv[a], names[i]->d_name);
        if (names[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
          bad |= replay(path);
          count++;
        }
        free(names[i]);
      }
      if (n >= 0) free(names);
    }
  }
  printf("replay: %d inputs\n", count);
  // nothing to replay is a wrong path, not a pass
  return bad || count == 0;
}
