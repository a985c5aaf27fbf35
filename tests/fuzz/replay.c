/* Replays fuzz inputs without libFuzzer: every file under the folders (or
 * the files) named on the command line goes through LLVMFuzzerTestOneInput
 * once, so plain and sanitizer builds run the corpus in make test. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX (64u << 20)

static int replayed, failed;

static void replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;

    if (!fp || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 ||
        (unsigned long)n > REPLAY_MAX || fseek(fp, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: cannot read '%s'\n", path);
        failed++;
        if (fp)
            fclose(fp);
        return;
    }
    buf = malloc(n ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        fprintf(stderr, "replay: cannot read '%s'\n", path);
        failed++;
    } else {
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        replayed++;
    }
    free(buf);
    fclose(fp);
}

static void replay(const char *path)
{
    struct stat st;
    struct dirent **names;
    int i, n;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
        failed++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        replay_file(path);
        return;
    }
    /* sorted, so a crash names the same input on every run */
    n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
        failed++;
        return;
    }
    for (i = 0; i < n; i++) {
        const char *name = names[i]->d_name;

        if (name[0] != '.') {
            size_t len = strlen(path) + strlen(name) + 2;
            char *sub = malloc(len);

            if (sub) {
                snprintf(sub, len, "%s/%s", path, name);
                replay(sub);
                free(sub);
            }
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    int i;

    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc; i++)
        replay(argv[i]);
    if (!replayed && !failed) {
        fprintf(stderr, "replay: no inputs found\n");
        failed++;
    }
    printf("%s: %d passed, %d failed\n", argv[0], replayed, failed);
    return failed ? 1 : 0;
}
