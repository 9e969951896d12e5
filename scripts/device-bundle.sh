#!/usr/bin/env bash
# Packs a relocatable copy of a build (clport, libclport, plugins, the non-system shared libraries
# they need) into DIR, for running on a machine without the build dependencies installed:
#   scripts/device-bundle.sh build .dev/bundle
#   DIR/clport.sh devices      (sets LD_LIBRARY_PATH and runs clport)
set -euo pipefail
build="${1:?build dir}"
dest="${2:?output dir}"
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib/clport/plugins" "$dest/deps"
cp "$build/bin/clport" "$dest/bin/"
# Extra executables from the build's bin/ (e.g. test binaries) named after the two directories.
for extra in "${@:3}"; do cp "$build/bin/$extra" "$dest/bin/"; done
cp -P "$build"/lib/libclport.so* "$dest/lib/"
cp "$build"/lib/clport/plugins/*.so "$dest/lib/clport/plugins/"
# Dependencies that a bare Ubuntu/Debian image may lack (everything but libc/libstdc++/libm).
for lib in $(ldd "$build/bin/clport" "$build"/lib/libclport.so | awk '/=>/ {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libclport.so*|ld-linux*) ;;
    *) cp -L "$lib" "$dest/deps/" ;;
  esac
done
# Debug info is most of the size; the device machine only runs these.
strip --strip-debug "$dest"/bin/* "$dest"/lib/libclport.so.*.*.* "$dest"/lib/clport/plugins/*.so
cat > "$dest/clport.sh" <<'SH'
#!/usr/bin/env bash
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$here/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/bin/clport" "$@"
SH
chmod +x "$dest/clport.sh"
du -sh "$dest"
