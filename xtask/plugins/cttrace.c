/*
 * cttrace: a QEMU TCG plugin that fingerprints what a program does between two marker
 * functions, for the trace-equivalence test of `cargo xtask ct-aarch64`.
 *
 *   qemu-aarch64 -plugin ./cttrace.so,out=FILE[,begin=NAME][,end=NAME][,dump=PREFIX[,seg=N]...] PROGRAM ARGS
 *
 * A segment starts when the guest executes an instruction of a function whose ELF symbol
 * contains `begin` (default "trace_marker_begin") and ends at an instruction of the function
 * whose symbol contains `end` (default "trace_marker_end"). For each segment it keeps two
 * 64-bit hashes: of the sequence of executed instruction addresses, and of the sequence of
 * memory accesses (address and QEMU's access info: size, sign, store or load). When the guest
 * exits it writes to FILE (stderr without out=):
 *
 *   base 0x...                      the start of the executable's code (the load address)
 *   segment N insns I mems M ihash 0x... mhash 0x...
 *
 * dump=PREFIX also writes every event of segment N to PREFIX.N ("I addr symbol" for an
 * instruction, "M addr info" for an access), to find where two segments diverge; with
 * seg=N (repeatable, up to 16) only those segments.
 * Every address is absolute: compare segments of one process (same load address, same stack).
 * Callbacks are plain C on shared state: meant for single-threaded guests.
 *
 * The QEMU plugin API (version 1, QEMU 7.2) is declared below as far as this plugin uses it,
 * written for this project with the signatures of QEMU's include/qemu/qemu-plugin.h.
 * Build:  cc -O2 -shared -fPIC -fvisibility=hidden -o cttrace.so cttrace.c
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the QEMU plugin API (version 1), as far as this plugin uses it ---- */
#define CTTRACE_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
typedef struct {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_start_code(void);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
CTTRACE_EXPORT extern int qemu_plugin_version;
CTTRACE_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);
/* ---- end of the API declarations ---- */

CTTRACE_EXPORT int qemu_plugin_version = 1;

/* One translated instruction (kept for the run: TBs may be retranslated, a few bytes each). */
struct insn_info {
    uint64_t vaddr;
    const char *symbol;
};

struct segment {
    uint64_t insns, mems, ihash, mhash;
};

static const char *begin_name = "trace_marker_begin";
static const char *end_name = "trace_marker_end";
static char *out_path;
static char *dump_prefix;
static FILE *dump;
#define MAX_DUMPED 16
static unsigned long dumped[MAX_DUMPED];
static size_t ndumped;

/* Whether segment `index` is to be dumped. */
static bool dumps(size_t index)
{
    if (!dump_prefix) {
        return false;
    }
    for (size_t i = 0; i < ndumped; i++) {
        if (dumped[i] == index) {
            return true;
        }
    }
    return ndumped == 0;
}

static bool recording;
static struct segment current;
static struct segment *segments;
static size_t nsegments, capsegments;

/* The splitmix64 finalizer: a bijection with full avalanche, so that a difference in any bit
 * of any event changes the hash (a plain multiply would carry high-bit differences nowhere). */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void on_begin(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (recording) {
        return;
    }
    recording = true;
    memset(&current, 0, sizeof current);
    if (dumps(nsegments)) {
        size_t len = strlen(dump_prefix) + 32;
        char *path = malloc(len);
        if (path) {
            snprintf(path, len, "%s.%zu", dump_prefix, nsegments);
            dump = fopen(path, "w");
            free(path);
        }
    }
}

static void on_end(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (!recording) {
        return;
    }
    recording = false;
    if (nsegments == capsegments) {
        capsegments = capsegments ? 2 * capsegments : 64;
        segments = realloc(segments, capsegments * sizeof *segments);
        if (!segments) {
            fprintf(stderr, "cttrace: out of memory\n");
            exit(1);
        }
    }
    segments[nsegments++] = current;
    if (dump) {
        fclose(dump);
        dump = NULL;
    }
}

static void on_insn(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    if (!recording) {
        return;
    }
    const struct insn_info *insn = udata;
    current.insns++;
    current.ihash = mix(current.ihash ^ insn->vaddr);
    if (dump) {
        fprintf(dump, "I %llx %s\n", (unsigned long long)insn->vaddr, insn->symbol ? insn->symbol : "?");
    }
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (!recording) {
        return;
    }
    current.mems++;
    current.mhash = mix(mix(current.mhash ^ vaddr) ^ info);
    if (dump) {
        fprintf(dump, "M %llx %x\n", (unsigned long long)vaddr, info);
    }
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const char *symbol = qemu_plugin_insn_symbol(insn);
        if (symbol && strstr(symbol, begin_name)) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
        } else if (symbol && strstr(symbol, end_name)) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        struct insn_info *info = malloc(sizeof *info);
        if (!info) {
            fprintf(stderr, "cttrace: out of memory\n");
            exit(1);
        }
        info->vaddr = qemu_plugin_insn_vaddr(insn);
        info->symbol = symbol;
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, info);
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
    }
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    (void)id;
    (void)p;
    FILE *f = out_path ? fopen(out_path, "w") : stderr;
    if (!f) {
        perror("cttrace: out=");
        f = stderr;
    }
    fprintf(f, "base 0x%llx\n", (unsigned long long)qemu_plugin_start_code());
    for (size_t i = 0; i < nsegments; i++) {
        const struct segment *s = &segments[i];
        fprintf(f, "segment %zu insns %llu mems %llu ihash 0x%016llx mhash 0x%016llx\n", i,
                (unsigned long long)s->insns, (unsigned long long)s->mems, (unsigned long long)s->ihash,
                (unsigned long long)s->mhash);
    }
    if (recording) {
        fprintf(f, "unterminated segment %zu\n", nsegments);
    }
    if (f != stderr) {
        fclose(f);
    }
}

CTTRACE_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "out=", 4)) {
            out_path = strdup(a + 4);
        } else if (!strncmp(a, "begin=", 6)) {
            begin_name = strdup(a + 6);
        } else if (!strncmp(a, "end=", 4)) {
            end_name = strdup(a + 4);
        } else if (!strncmp(a, "dump=", 5)) {
            dump_prefix = strdup(a + 5);
        } else if (!strncmp(a, "seg=", 4) && ndumped < MAX_DUMPED) {
            dumped[ndumped++] = strtoul(a + 4, NULL, 10);
        } else {
            fprintf(stderr, "cttrace: unknown option %s (out=FILE, begin=NAME, end=NAME, dump=PREFIX, seg=N)\n", a);
            return -1;
        }
    }
    if (info->system_emulation) {
        fprintf(stderr, "cttrace: meant for user-mode emulation (one vCPU)\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
