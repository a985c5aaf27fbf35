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
MANPAGE="$R/usr/share/man/man1/dglpart.1"
if command -v man >/dev/null; then
    expect_ok "the man page renders" sh -c "MANWIDTH=80 man -l '$MANPAGE' | cat"
    expect_stdout 'DGLPART PARTITION' "it has a section per command"
    expect_stdout '--balance_train' "with the options of --help"
    expect_stdout '^ENVIRONMENT' "and an ENVIRONMENT section"
else
    grep -q '^\.SH "DGLPART PARTITION"' "$MANPAGE" &&
        pass "the man page has a section per command" ||
        fail "the man page has a section per command"
    grep -q '^\.SH ENVIRONMENT' "$MANPAGE" &&
        pass "and an ENVIRONMENT section" || fail "and an ENVIRONMENT section"
fi
# the settings table (dglpart help env), with the variables for tests apart
sed -n '/^\.SH ENVIRONMENT/,$p' "$MANPAGE" >"$OUT"
expect_stdout '^  DGLPART_RETRY_DELAY_MS=MS  \(default 1000' \
    "the man page lists the settings with their defaults"
expect_eq "$(sed -n '/^For tests only:/,/^$/p' "$OUT" | grep -c '^  DGLPART_FAULT=')" 1 \
    "DGLPART_FAULT is marked for tests only"
expect_ok "make uninstall" make -s -C "$TOP" uninstall DESTDIR="$R" PREFIX=/usr
expect_eq "$(find "$R" -type f | wc -l)" 0 "nothing left after uninstall"
finish
