#!/bin/bash
# bootstrap's package step, against stub apt-get, dpkg-query and id: a
# package apt cannot install (NodeSource's nodejs conflicts with Debian's
# npm: CI's machine) costs only its own tests, one the build needs stops it,
# and a command already on PATH is not asked for again.
. "${GX_SRCDIR}/tests/e2e/lib.sh"

mkdir -p src stub
cp "$GX_SRCDIR/bootstrap" src/
for t in sh dirname grep uname cat; do ln -s "$(command -v $t)" stub/$t; done
cat >stub/id <<'S'
#!/bin/sh
echo 0
S
# Nothing is installed; every apt-get call is logged, one naming $BAD fails.
cat >stub/dpkg-query <<'S'
#!/bin/sh
exit 1
S
cat >stub/apt-get <<'S'
#!/bin/sh
echo "$*" >>"$LOG"
case " $* " in *" $BAD "*) echo "E: held broken packages" >&2; exit 100 ;; esac
exit 0
S
chmod +x stub/*

run() {	# run BAD: bootstrap's package step, PATH only the stubs
	: >log
	env -i PATH="$PWD/stub" LOG="$PWD/log" BAD="$1" GX_PACKAGES_ONLY=1 \
		sh src/bootstrap >out 2>err
}

run none
is "$?" 0 "everything installable: bootstrap's package step succeeds"
is "$(grep -c '^install ' log)" 1 "one apt-get install for all of them"
check "npm is asked for when there is no npm command" grep -q ' npm' log

run npm
is "$?" 0 "npm cannot be installed: bootstrap goes on"
check "it says which package was not installed" grep -q 'not installed.*npm' err
check "the others are installed one at a time" grep -qx 'install -y -qq --no-install-recommends valgrind' log
check "the build's own packages too" grep -qx 'install -y -qq --no-install-recommends libpfm4-dev' log

run libelf-dev
is "$?" 1 "a package the build needs cannot be installed: bootstrap stops"
check "naming it" grep -q 'cannot install libelf-dev, which the build needs' err

printf '#!/bin/sh\n' >stub/npm
printf '#!/bin/sh\n' >stub/node
chmod +x stub/npm stub/node
run npm
is "$?" 0 "npm and node already on PATH (NodeSource's nodejs)"
check "npm is not asked for" sh -c "! grep -q ' npm' log"
check "nor nodejs" sh -c "! grep -q ' nodejs' log"
check "nothing failed" sh -c "! grep -q 'not installed' err"
done_testing
