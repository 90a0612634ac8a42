/* liblatmc examples — the output directory, data files and gnuplot. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ex_output.h"

bool ex_make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return true;
    fprintf(stderr, "cannot create directory %s: %s\n", dir, strerror(errno));
    return false;
}

FILE *ex_create(const char *dir, const char *name, char *path, size_t n)
{
    if ((size_t)snprintf(path, n, "%s/%s", dir, name) >= n) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        return NULL;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return f;
}

bool ex_close(FILE *f, const char *path)
{
    /* A full disk shows up only at the flush: check both the stream and fclose. */
    bool ok = !ferror(f);
    if (fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "error writing %s\n", path);
    return ok;
}

/* The full path of an executable `program` on PATH into full (size n); false if none. */
static bool find_program(const char *program, char *full, size_t n)
{
    const char *path = getenv("PATH");
    if (path == NULL || path[0] == '\0')
        path = "/usr/bin:/bin";
    while (*path != '\0') {
        size_t len = strcspn(path, ":");
        /* An empty PATH entry means the current directory. */
        int w = len == 0 ? snprintf(full, n, "./%s", program)
                         : snprintf(full, n, "%.*s/%s", (int)len, path, program);
        if (w > 0 && (size_t)w < n && access(full, X_OK) == 0)
            return true;
        path += len;
        if (*path == ':')
            path++;
    }
    return false;
}

enum ex_plot ex_gnuplot(const char *dir, const char *script)
{
    char found[4096], cwd[4096], gnuplot[8200];
    /* Made absolute: a relative PATH entry would no longer hold after the chdir below. */
    bool ok = find_program("gnuplot", found, sizeof found);
    if (ok && found[0] != '/')
        ok = getcwd(cwd, sizeof cwd) != NULL &&
             (size_t)snprintf(gnuplot, sizeof gnuplot, "%s/%s", cwd, found) < sizeof gnuplot;
    else if (ok)
        snprintf(gnuplot, sizeof gnuplot, "%s", found);
    if (!ok) {
        printf("gnuplot is not installed: no PNG (run 'gnuplot %s' in %s later)\n", script, dir);
        return EX_PLOT_NO_GNUPLOT;
    }
    fflush(NULL); /* the child must not write our buffered output a second time */
    /* fork + exec rather than system(): no shell, so no quoting of dir or script. The path
     * is resolved before the fork: the child only calls chdir and execv. */
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cannot start gnuplot: %s\n", strerror(errno));
        return EX_PLOT_FAILED;
    }
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        char *const argv[] = { gnuplot, (char *)script, NULL };
        execv(gnuplot, argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "waiting for gnuplot: %s\n", strerror(errno));
            return EX_PLOT_FAILED;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        printf("gnuplot %s: plot written in %s\n", script, dir);
        return EX_PLOT_DONE;
    }
    fprintf(stderr, "gnuplot %s failed in %s (the data and the script are there)\n", script,
            dir);
    return EX_PLOT_FAILED;
}
