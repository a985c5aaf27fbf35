#!/bin/sh
# Hostile archives: '..', absolute paths, symlinks, hard links, devices and a
# zip bomb are refused and write nothing outside (or inside) the target.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/download-servers.sh"
MK="$TOP/tests/helpers/mkarchive.py"

www="$TMP/www"
mkdir -p "$www" "$TMP/victim"
evil="$TMP/victim/escaped-$$"
python3 "$MK" evil dotdot "$www/dotdot.zip" "victim/escaped-$$"
python3 "$MK" evil abs "$www/abs.zip" "$evil"
python3 "$MK" evil symlink "$www/symlink.zip" "$TMP/victim"
python3 "$MK" evil tarsymlink "$www/tarsymlink.tar" "$TMP/victim"
python3 "$MK" evil hardlink "$www/hardlink.tar" "/etc/passwd"
python3 "$MK" evil device "$www/device.tar"
python3 "$MK" evil bomb "$www/bomb.zip" 200
python3 "$MK" evil inodes "$www/inodes.tar.xz" 3000
python3 "$MK" evil deep "$www/deep.tar.xz" 100
# a sparse 20 GiB file: no data bytes, a 20 GiB apparent size (GNU tar)
truncate -s 20G "$TMP/sparse.bin" &&
    tar --sparse -C "$TMP" -cf "$www/sparse.tar" sparse.bin && rm "$TMP/sparse.bin"
start_nginx "$www" || exit 1

check() {
    kind=$1 regex=$2 ext=$3
    data="$TMP/data/$kind"
    mkdir -p "$data"
    run "$DGLPART" download --data_dir "$data" "$NGINX_URL/$kind.$ext"
    expect_eq "$RC" 1 "$kind: refused"
    expect_stderr "$regex" "$kind: reason given"
    expect_missing "$data/$kind" "$kind: no dataset folder"
    expect_missing "$data/$kind.unpack" "$kind: temporary folder removed"
    expect_eq "$(ls -A "$TMP/victim")" "" "$kind: nothing written outside"
}
check dotdot "entry 'top/\.\./\.\./victim/escaped-$$' has an unsafe path" zip
check abs "entry '$evil' has an unsafe path" zip
check symlink "entry 'top/link' is a symbolic link" zip
check tarsymlink "entry 'top/bad' is a symbolic link" tar
check hardlink "entry 'top/bad' is a hard link" tar
check device "entry 'top/bad' is a character device" tar
check bomb "(unpacks to|entries declare) more than [0-9]+ bytes.*refusing \(possible zip bomb\)" zip
check sparse "entries declare more than [0-9]+ bytes \(sparse holes included\)" tar
DGLPART_UNPACK_MAX_ENTRIES=1000 check inodes "more than 1000 entries; refusing \(possible inode bomb" tar.xz
check deep "is 102 levels deep \(at most 64" tar.xz
expect_ok "a raised entry limit lets the 3000 files in" env \
    DGLPART_UNPACK_MAX_ENTRIES=5000 "$DGLPART" download --data_dir "$TMP/data/ok" \
    "$NGINX_URL/inodes.tar.xz"
expect_eq "$(ls "$TMP/data/ok/inodes" | wc -l)" 3000 "all 3000 files there"
[ ! -e "$evil" ] && [ ! -e "$TMP/escaped-$$" ] && [ ! -e "$TMP/data/escaped-$$" ]
expect_eq $? 0 "no escaped file anywhere"

# The archive itself stays (it was verified); a fixed registry can reuse it.
[ -f "$TMP/data/bomb/bomb.zip" ]; expect_eq $? 0 "refused archive kept for inspection"
finish
