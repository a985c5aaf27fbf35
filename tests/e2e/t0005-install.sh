#!/bin/sh
# make install puts the binary, its bundled datasets and its man page under
# PREFIX (here inside DESTDIR); the installed binary runs the main job from
# any folder, offline; make uninstall takes it all away again.
. "$(dirname "$0")/lib.sh"

R="$TMP/root"
expect_ok "make install" make -s -C "$TOP" install DESTDIR="$R" PREFIX=/usr
for f in bin/dglpart share/man/man1/dglpart.1 \
    share/dglpart/datasets/cora/cora.cites \
    share/dglpart/datasets/citeseer/citeseer.content.gz; do
    [ -f "$R/usr/$f" ] && pass "installed $f" || fail "installed $f"
done
mkdir "$TMP/elsewhere" && cd "$TMP/elsewhere" || exit 1
expect_ok "the installed binary partitions the bundled Cora" \
    "$R/usr/bin/dglpart" --num_parts 2 --balance_train
expect_stdout "^partitioned 'cora' into 2 parts" "from another folder"
expect_ok "datasets lists cora as bundled" "$R/usr/bin/dglpart" datasets
expect_stdout '^cora .* bundled' "cora is bundled"
if command -v man >/dev/null; then
    expect_ok "the man page renders" sh -c "MANWIDTH=80 man -l '$R/usr/share/man/man1/dglpart.1' | cat"
    expect_stdout 'DGLPART PARTITION' "it has a section per command"
    expect_stdout '--balance_train' "with the options of --help"
else
    grep -q '^\.SH "DGLPART PARTITION"' "$R/usr/share/man/man1/dglpart.1" &&
        pass "the man page has a section per command" ||
        fail "the man page has a section per command"
fi
expect_ok "make uninstall" make -s -C "$TOP" uninstall DESTDIR="$R" PREFIX=/usr
expect_eq "$(find "$R" -type f | wc -l)" 0 "nothing left after uninstall"
finish
