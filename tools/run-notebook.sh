#!/usr/bin/env bash
# Executes notebooks/connectome.ipynb headless on the committed golden exports and checks that
# it drew its four pictures. Installs the notebook's pinned plotting stack into a venv from
# PyPI (notebooks/requirements.txt) and nothing of this crate.
#
#   NOTEBOOK_VENV   where the venv lives (default: .notebook-venv in the checkout; reused while
#                   it works, made anew when it does not)
#   CONNECTOME_OUT  where the PNGs go (default: a fresh temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${NOTEBOOK_VENV:-$PWD/.notebook-venv}"
out="${CONNECTOME_OUT:-$(mktemp -d)}"
export CONNECTOME_OUT="$out"
export CONNECTOME_DECLARED="$PWD/tests/golden/connectome_declared.json"
export CONNECTOME_OBSERVED="$PWD/tests/golden/connectome_observed.json"
export CONNECTOME_DIFF="$PWD/tests/golden/connectome_diff.json"
export CONNECTOME_EFFECTIVE="$PWD/tests/golden/connectome_effective_federated.json"
export MPLBACKEND=Agg
echo "== notebook: venv $venv, pictures into $out"
if ! "$venv/bin/python" -c "import sys" >/dev/null 2>&1; then
  rm -rf "$venv"
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r notebooks/requirements.txt
rm -f "$out"/declared.png "$out"/observed.png "$out"/diff.png "$out"/effective.png
"$venv/bin/python" - <<'PY'
import sys
import nbformat
from nbclient import NotebookClient

nb = nbformat.read("notebooks/connectome.ipynb", as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3",
               resources={"metadata": {"path": "notebooks"}}).execute()
shown = sum(1 for cell in nb.cells if cell.cell_type == "code"
            for o in cell.get("outputs", []) if "image/png" in o.get("data", {}))
if shown != 4:
    sys.exit(f"notebook displayed {shown} pictures, expected 4")
PY
passed=0
failed=0
for name in declared observed diff effective; do
  png="$out/$name.png"
  if [ -s "$png" ] && [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
    echo "ok   $png ($(wc -c <"$png") bytes)"
    passed=$((passed + 1))
  else
    echo "FAIL $png missing or not a PNG"
    failed=$((failed + 1))
  fi
done
echo "notebook: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
