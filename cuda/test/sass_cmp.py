#!/usr/bin/env python3
"""Compare two `cuobjdump -sass` listings kernel by kernel.

    python3 cuda/test/sass_cmp.py before.sass after.sass

Each kernel's instruction text is compared without addresses and encodings
(branch targets inside a kernel stay: they move only if the code does).
Kernels are matched by their demangled names, normalized so that a kernel
made a template over the point type keeps its name: affine_t<Fe<FpCfg>> is
g1_affine, xyzz_t<Fe<FpCfg>> is g1_xyzz, and the template arguments of a
kernel over those types are dropped. Kernels over G2 (fp2_t) are new and
only counted. Prints one line per kernel (same / DIFFERENT with instruction
counts / only before / only after) and exits 1 if any G1 kernel differs or
is missing.
"""
import re
import subprocess
import sys


def parse(path):
    funcs, name = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            funcs[name] = []
            continue
        if name is None:
            continue
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(.*?)\s*;?\s*/\* 0x[0-9a-f]+ \*/", line)
        if m:
            funcs[name].append(m.group(1).strip())
    return funcs


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return out.split("\n")[: len(names)]


def normalize(d):
    d = re.sub(r"\s+", " ", d)
    d = d.replace("affine_t<Fe<FpCfg> >", "g1_affine").replace("xyzz_t<Fe<FpCfg> >", "g1_xyzz")
    d = re.sub(r"^void ", "", d)
    # msm_acc_chunks<g1_affine, g1_xyzz>(...) -> msm_acc_chunks(...)
    d = re.sub(r"^(\w+)<(g1_affine|g1_xyzz|,|\s)+>\(", r"\1(", d)
    return d


def keyed(funcs):
    names = list(funcs)
    out = {}
    for n, d in zip(names, demangle(names)):
        out[normalize(d)] = (n, funcs[n])
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    a, b = keyed(parse(sys.argv[1])), keyed(parse(sys.argv[2]))
    bad = 0
    for k in sorted(set(a) | set(b)):
        if "fp2_t" in k:
            continue
        short = k if len(k) < 110 else k[:107] + "..."
        if k not in b:
            print(f"only before: {short}")
            bad += 1
        elif k not in a:
            print(f"only after:  {short}")
        elif a[k][1] == b[k][1]:
            print(f"same ({len(a[k][1])} instructions): {short}")
        else:
            print(f"DIFFERENT ({len(a[k][1])} -> {len(b[k][1])} instructions): {short}")
            bad += 1
    g2 = [k for k in b if "fp2_t" in k]
    print(f"G2 kernels (new): {len(g2)}; {sum(len(b[k][1]) for k in g2)} instructions")
    print("G1 SASS: " + ("identical" if bad == 0 else f"{bad} kernels differ or are missing"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
