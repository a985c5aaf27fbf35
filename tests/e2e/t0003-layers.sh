#!/bin/sh
# Layers only point down: core <- format <- stages <- the pipeline and the
# command table. Every symbol an object takes from another object of the
# library must come from core/, format/ or its own folder (format/ from core/
# and itself; core/ from itself only). Read from the objects with nm.
. "$(dirname "$0")/lib.sh"

STAGES="core format download convert partition copy launch runtime"

# objects DIR: the objects under DIR/<stage>/ whose source still exists (a
# build folder may keep objects of files since moved)
objects() {
    (cd "$1" && find $STAGES -name '*.o' 2>/dev/null | sort) | while read -r o; do
        [ -f "$TOP/${o%.o}.c" ] || [ -f "$1/${o%.o}.c" ] && echo "$o"
    done
}

# layer_violations DIR: one line per symbol an object under DIR/<stage>/
# takes from a layer beside or above it (one nm over all the objects for
# their definitions, one for what they take)
layer_violations() {
    (
        cd "$1" || exit 1
        objs=$(objects "$1")
        tops=$(for o in *.o; do [ -f "$o" ] && echo "$o"; done)
        # shellcheck disable=SC2086
        { nm -A --defined-only -g $objs $tops | sed 's/^/D /'
          [ -z "$objs" ] || nm -A -u $objs | sed 's/^/U /'; }
    ) | awk '
        { f = $2; sub(/:.*/, "", f); d = f; if (!sub(/\/[^\/]*$/, "", d)) d = "." }
        $1 == "D" { if (!($4 in from)) from[$4] = d; next }
        !($4 in from) { next }
        {
            x = from[$4]
            if (d == "core" || d == "format") {
                if (!(x == "core" || (d == "format" && x == "format")))
                    print f " uses " $4 " from " x "/"
            } else if (x != "core" && x != "format" && x != d)
                print f " uses " $4 " from " x "/"
        }'
}

n=$(objects "$TOP/$BUILD" | wc -l)
[ "$n" -gt 50 ] && pass "found the library's objects ($n)" ||
    fail "only $n objects under $BUILD"
layer_violations "$TOP/$BUILD" >"$TMP/bad"
if [ -s "$TMP/bad" ]; then
    fail "a layer uses a symbol of a layer beside or above it"
    sed 's/^/#   /' "$TMP/bad"
else
    pass "every stage uses only core/, format/ and itself"
fi

# The check can fail: runtime/ calling into launch/, and core/ into format/.
mkdir -p "$TMP/fake/launch" "$TMP/fake/runtime" "$TMP/fake/format" \
    "$TMP/fake/core"
echo 'int dp_l(void); int dp_l(void) { return 1; }' >"$TMP/l.c"
echo 'int dp_l(void); int dp_r(void); int dp_r(void) { return dp_l(); }' \
    >"$TMP/r.c"
echo 'int dp_f(void); int dp_f(void) { return 2; }' >"$TMP/f.c"
echo 'int dp_f(void); int dp_c(void); int dp_c(void) { return dp_f(); }' \
    >"$TMP/c.c"
cp "$TMP/l.c" "$TMP/fake/launch/l.c"
cp "$TMP/r.c" "$TMP/fake/runtime/r.c"
cp "$TMP/f.c" "$TMP/fake/format/f.c"
cp "$TMP/c.c" "$TMP/fake/core/c.c"
cc -c -o "$TMP/fake/launch/l.o" "$TMP/l.c" &&
    cc -c -o "$TMP/fake/runtime/r.o" "$TMP/r.c" &&
    cc -c -o "$TMP/fake/format/f.o" "$TMP/f.c" &&
    cc -c -o "$TMP/fake/core/c.o" "$TMP/c.c"
layer_violations "$TMP/fake" >"$TMP/bad"
grep -q '^runtime/r.o uses dp_l from launch/$' "$TMP/bad" &&
    pass "a stage calling another stage is caught" ||
    fail "runtime -> launch not caught: $(cat "$TMP/bad")"
grep -q '^core/c.o uses dp_f from format/$' "$TMP/bad" &&
    pass "core calling format is caught" ||
    fail "core -> format not caught: $(cat "$TMP/bad")"
finish
