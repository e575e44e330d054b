#!/bin/bash
# Stage Ray's wheels for the GPU machine (Python 3.12, vLLM 0.26.0 bundle in /tmp/site, no network),
# cut into parts small enough for one device call each (a call carries 64 MiB, checkout included).
# Usage (development machine, PyPI reachable): bash benchmarks/gpu/prepare-ray-stage.sh [REPO_ROOT]
#   -> REPO_ROOT/.ray-stage/{part1,part2,scripts}  (.ray-stage/ is added to .git/info/exclude)
# GPU side, from the checkout root, one device call per part (carry [".ray-stage/partN", ".ray-stage/scripts"]):
#   bash .ray-stage/scripts/stage.sh 1        (then 2; the parts land in /root/ray-stage)
#   bash .ray-stage/scripts/install.sh        (checksum, pip --no-index --no-deps --target /tmp/site,
#                                              the deps the image lacks only, then an import test)
# Ray 2.60.0: vLLM 0.26 asks for Ray >= 2.43 (its Ray executor's check); the same version runs the
# CPU rehearsal. Ray's own deps: click, filelock, jsonschema, msgpack, packaging, protobuf,
# pyyaml, requests (+ charset-normalizer, idna, urllib3, certifi), jsonschema (+ attrs, referencing,
# rpds-py, jsonschema-specifications; in the vLLM bundle): each is installed only when `import` fails
# with PYTHONPATH=/tmp/site (so the image's and the bundle's own copies stay).
set -euo pipefail
REPO=$(cd "${1:-.}" && pwd)
RAY_VERSION=${RAY_VERSION:-2.60.0}
W=${RAY_STAGE_WORK:-/tmp/ray-stage-build}
rm -rf "$W"; mkdir -p "$W/whl"; cd "$W"
PYT="--python-version 3.12 --implementation cp --only-binary=:all:"
PLAT="--platform any --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64"
python3 -m pip download -q --no-deps $PYT $PLAT -d whl "ray==$RAY_VERSION"
python3 -m pip download -q --no-deps $PYT $PLAT -d whl click==8.5.1 msgpack==1.2.4 protobuf==7.36.2 \
  filelock==4.3.1 PyYAML==6.0.4 requests==2.34.2 charset-normalizer==3.5.3 idna==3.20 urllib3==2.8.0 \
  certifi==2026.10.19.post1 packaging==26.4 attrs==25.4.0 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 \
  referencing==0.37.0 rpds-py==2026.9.1 typing-extensions==4.16.0 tomli-w==1.2.0  # tomli-w: the console's
RAYWHL=$(ls whl/ray-*.whl)
EXCLUDE=$(cd "$REPO" && realpath -m "$(git rev-parse --git-path info/exclude)")  # a worktree's is the main repo's
grep -qx '.ray-stage/' "$EXCLUDE" 2>/dev/null || echo '.ray-stage/' >> "$EXCLUDE"
rm -rf "$REPO/.ray-stage"; mkdir -p "$REPO/.ray-stage/part1" "$REPO/.ray-stage/part2" "$REPO/.ray-stage/scripts"
split -b 40M -d -a 1 "$RAYWHL" "$REPO/.ray-stage/part1/$(basename "$RAYWHL")."
mv "$REPO/.ray-stage/part1/$(basename "$RAYWHL").1" "$REPO/.ray-stage/part2/"
test ! -e "$REPO/.ray-stage/part1/$(basename "$RAYWHL").2" || { echo "ray wheel needs more than 2 parts"; exit 1; }
mkdir -p "$REPO/.ray-stage/part2/deps"; cp whl/*.whl "$REPO/.ray-stage/part2/deps/"; rm "$REPO/.ray-stage/part2/deps/$(basename "$RAYWHL")"
(cd whl && sha256sum "$(basename "$RAYWHL")") > "$REPO/.ray-stage/scripts/SHA256"
cat > "$REPO/.ray-stage/scripts/stage.sh" <<'EOS'
#!/bin/bash
# GPU side: copy part N into /root/ray-stage
set -e; S=${RAY_STAGE_DIR:-/root/ray-stage}; mkdir -p "$S"; cp -r .ray-stage/part$1/* "$S/"; ls -la "$S" | tail -n +2
EOS
cat > "$REPO/.ray-stage/scripts/install.sh" <<'EOS'
#!/bin/bash
# GPU side: join the ray wheel's parts, check it, install it and the missing deps into /tmp/site
# (RAY_STAGE_DIR, SITE and PYTHON change where; the defaults are the GPU machine's)
set -e; REPO=$(pwd); SITE=${SITE:-/tmp/site}; PY=${PYTHON:-python3}; cd "${RAY_STAGE_DIR:-/root/ray-stage}"; t0=$(date +%s)
read -r want name < "$REPO/.ray-stage/scripts/SHA256"
cat "$name".? > "/tmp/$name"
got=$(sha256sum "/tmp/$name" | awk '{print $1}')
[ "$want" = "$got" ] || { echo "CHECKSUM MISMATCH: a part is missing or stale; stage both parts again"; ls -la; exit 3; }
mkdir -p $SITE
pipi() { $PY -m pip install -q --no-index --no-deps --no-compile --target $SITE "$@" 2>&1 | grep -v "WARNING: Target directory" || true; }
if $PY -m pip --version >/dev/null 2>&1; then pipi "/tmp/$name"; else $PY -m zipfile -e "/tmp/$name" $SITE; fi
# The `ray` command, written here: pip --target skips a top-level folder that exists (the bundle's bin/),
# and without pip there is none. ray_layout.py finds it in $SITE/bin.
mkdir -p $SITE/bin
printf '#!/bin/sh\nexec %s -c "import sys; from ray.scripts.scripts import main; sys.exit(main())" "$@"\n' \
  "$(command -v "$PY")" > "$SITE/bin/ray"
chmod +x $SITE/bin/ray
# Ray's deps: only those the image + vLLM bundle lack (installing the others would shadow the image's)
for pair in click:click msgpack:msgpack google.protobuf:protobuf filelock:filelock yaml:pyyaml requests:requests \
            charset_normalizer:charset_normalizer idna:idna urllib3:urllib3 certifi:certifi packaging:packaging \
            typing_extensions:typing_extensions attr:attrs rpds:rpds_py referencing:referencing \
            jsonschema_specifications:jsonschema_specifications jsonschema:jsonschema tomli_w:tomli_w; do
  mod=${pair%%:*}; whl=${pair##*:}
  if ! PYTHONPATH=$SITE $PY -c "import $mod" 2>/dev/null; then echo "installing $whl (missing)"; pipi deps/$whl-*.whl; fi
done
echo "install took $(( $(date +%s) - t0 )) s"
PYTHONPATH=$SITE $SITE/bin/ray --version
PYTHONPATH=$SITE $PY -c 'import ray, vllm; from vllm.v1.executor import ray_utils; print("ray", ray.__version__, "vllm", vllm.__version__, "ray_utils ok:", ray_utils.ray_is_available())'
EOS
chmod +x "$REPO/.ray-stage/scripts/"*.sh
du -sh "$REPO/.ray-stage/"* ; ls -la "$REPO/.ray-stage/"part*
