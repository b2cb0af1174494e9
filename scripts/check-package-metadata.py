#!/usr/bin/env python3
"""Checks that the package's metadata agree with each other (a CTest test, package_metadata):
- LICENSE is the BSD 3-Clause license of the Tessera developers;
- CITATION.cff is valid YAML with the keys CFF 1.2.0 requires (cff-version, message, title,
  authors), its version is the project's (CMakeLists.txt, project(... VERSION)), its license is
  BSD-3-Clause, and each reference has a type, a title and authors;
- the Spack recipe declares license("BSD-3-Clause");
- CHANGELOG.md has a section for the project's version;
- README.md has a License section naming BSD-3-Clause;
- CMakeLists.txt installs LICENSE.
Needs PyYAML (Debian: python3-yaml). Exit status 1 with a list of the disagreements."""
import pathlib
import re
import sys

try:
    import yaml
except ImportError:
    sys.exit("check-package-metadata: PyYAML is missing (Debian: apt-get install python3-yaml)")

root = pathlib.Path(__file__).resolve().parent.parent
LICENSE_ID = "BSD-3-Clause"
errors = []


def text(name):
    path = root / name
    if not path.exists():
        errors.append(f"{name} is missing")
        return ""
    return path.read_text(encoding="utf-8")


cmake = text("CMakeLists.txt")
m = re.search(r"project\(\s*Tessera\s+VERSION\s+([\d.]+)", cmake)
version = m.group(1) if m else None
if not version:
    errors.append("CMakeLists.txt: no project(Tessera VERSION x.y.z)")
if not re.search(r"install\(FILES[^)]*\bLICENSE\b", cmake):
    errors.append("CMakeLists.txt does not install LICENSE")

license_text = text("LICENSE")
if not license_text.startswith("BSD 3-Clause License") or not re.search(
        r"Copyright \(c\) \d{4}, the Tessera developers", license_text):
    errors.append("LICENSE is not the BSD 3-Clause License of 'the Tessera developers'")

try:
    citation = yaml.safe_load(text("CITATION.cff")) or {}
except yaml.YAMLError as e:
    errors.append(f"CITATION.cff is not valid YAML: {e}")
    citation = {}
for key in ("cff-version", "message", "title", "authors"):
    if not citation.get(key):
        errors.append(f"CITATION.cff has no '{key}'")
if citation and str(citation.get("cff-version")) != "1.2.0":
    errors.append(f"CITATION.cff: cff-version {citation.get('cff-version')}, expected 1.2.0")
if citation and str(citation.get("version")) != str(version):
    errors.append(f"CITATION.cff: version {citation.get('version')}, but the project's is {version}")
if citation and citation.get("license") != LICENSE_ID:
    errors.append(f"CITATION.cff: license {citation.get('license')}, expected {LICENSE_ID}")
for i, reference in enumerate(citation.get("references") or []):
    for key in ("type", "title", "authors"):
        if not reference.get(key):
            errors.append(f"CITATION.cff: reference {i + 1} has no '{key}'")

recipe = text("spack/spack_repo/tessera/packages/tessera/package.py")
if f'license("{LICENSE_ID}")' not in recipe:
    errors.append(f"the Spack recipe does not declare license(\"{LICENSE_ID}\")")

changelog = text("CHANGELOG.md")
if version and not re.search(r"^## \[?" + re.escape(version) + r"\b", changelog, re.M):
    errors.append(f"CHANGELOG.md has no section '## {version}'")

readme = text("README.md")
section = re.search(r"^## License\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
if not section or LICENSE_ID not in section.group(1):
    errors.append(f"README.md has no '## License' section naming {LICENSE_ID}")

for e in errors:
    print("check-package-metadata:", e)
print(f"check-package-metadata: version {version}, {len(errors)} disagreements")
sys.exit(1 if errors else 0)
