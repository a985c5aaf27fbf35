#!/usr/bin/env python3
"""Build the archives the download tests serve and unpack.

usage: mkarchive.py dir  SRC_DIR TOP OUT.{zip,tar.gz}  pack SRC_DIR under TOP/
       mkarchive.py evil KIND OUT [ARG]                 one hostile archive
         (inodes N: N empty files; deep N: a file N folders down)
KIND: dotdot (zip entry ../ARG), abs (zip entry ARG, an absolute path),
      symlink (zip: link -> ARG, then link/pwned), tarsymlink, hardlink
      (tar: hard link to ARG), device (tar: character device), bomb (zip:
      ARG MiB of zeros, deflated).
"""
import io
import os
import sys
import tarfile
import zipfile


def pack_dir(src, top, out):
    files = []
    for base, dirs, names in os.walk(src):
        dirs.sort()
        for n in sorted(names):
            path = os.path.join(base, n)
            files.append((path, os.path.join(top, os.path.relpath(path, src))))
    if out.endswith(".zip"):
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for path, arc in files:
                z.write(path, arc)
    else:
        with tarfile.open(out, "w:gz") as t:
            for path, arc in files:
                t.add(path, arc)


def zip_entry(z, name, data, mode=0o100644):
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    z.writestr(info, data)


def evil(kind, out, arg):
    if kind in ("inodes", "deep"):
        # many empty files, or one file under many folders: tiny as .tar.xz
        with tarfile.open(out, "w:xz") as t:
            if kind == "inodes":
                for i in range(int(arg)):
                    t.addfile(tarfile.TarInfo("top/f%d" % i))
            else:
                t.addfile(tarfile.TarInfo("top/" + "d/" * int(arg) + "f"))
        return
    if kind in ("dotdot", "abs", "symlink", "bomb"):
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            zip_entry(z, "top/ok.txt", b"fine\n")
            if kind == "dotdot":
                zip_entry(z, "top/../../" + arg, b"escaped\n")
            elif kind == "abs":
                zip_entry(z, arg, b"escaped\n")
            elif kind == "symlink":
                zip_entry(z, "top/link", arg.encode(), 0o120777)
                zip_entry(z, "top/link/pwned", b"escaped\n")
            else:
                info = zipfile.ZipInfo("top/zeros.bin")
                info.compress_type = zipfile.ZIP_DEFLATED
                with z.open(info, "w", force_zip64=True) as f:
                    block = bytes(1 << 20)
                    for _ in range(int(arg)):
                        f.write(block)
        return
    with tarfile.open(out, "w") as t:
        data = b"fine\n"
        ti = tarfile.TarInfo("top/ok.txt")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
        ti = tarfile.TarInfo("top/bad")
        if kind == "tarsymlink":
            ti.type = tarfile.SYMTYPE
            ti.linkname = arg
        elif kind == "hardlink":
            ti.type = tarfile.LNKTYPE
            ti.linkname = arg
        elif kind == "device":
            ti.type = tarfile.CHRTYPE
            ti.devmajor, ti.devminor = 1, 3
        else:
            sys.exit("unknown kind " + kind)
        t.addfile(ti)


if __name__ == "__main__":
    if sys.argv[1] == "dir":
        pack_dir(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        evil(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
