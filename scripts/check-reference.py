#!/usr/bin/env python3
"""Checks the API reference that `tessera_docs` generated (Doxygen, docs/Doxyfile.in) against
the public headers, in two ways:

1. Every free function declared in a public header (include/tessera/**/*.hpp and the
   generated headers' *.hpp.in, outside impl/ folders and outside namespaces named Impl) has a
   documented entry in the reference: a documented function member of its namespace in
   Doxygen's XML output (<docs>/xml) whose entry is on that namespace's HTML page. A namespace
   without a doc comment gets no HTML page (the XML lists it all the same), and then none of its
   functions appears in the reference although each is documented in its header: that is what
   this catches, and a function Doxygen does not see at all.
2. Every link and picture of the HTML pages (<docs>/html) that points into the reference
   exists (a Markdown link or image that Doxygen could not resolve stays a dead relative path).

The header side is a small C++ scanner (comments, literals and preprocessor lines removed,
braces tracked as namespace, class or block scopes): it reads function declarations and
definitions at namespace scope, template heads included, and operators.

Usage: check-reference.py <docs dir, e.g. build/docs>. Exit status 1 with a list of what is
missing."""
import pathlib
import re
import sys
import xml.etree.ElementTree as ElementTree

root = pathlib.Path(__file__).resolve().parent.parent

NOT_NAMES = {"decltype", "alignas", "noexcept", "sizeof", "__attribute__", "__declspec"}
OPERATOR = re.compile(
    r"\boperator\s*(\(\s*\)|\[\s*\]|->\*?|<<=?|>>=?|&&|\|\||\+\+|--|[-+*/%^&|~!=<>]=?|,|"
    r"new\b|delete\b|\w[\w:<>,*& ]*?)\s*\(")


def without_comments(text):
    """The code with comments, string and character literals and preprocessor lines blanked
    (newlines kept, so that offsets still give line numbers)."""
    token = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|'
                       r"'(?:\\.|[^'\\\n])*'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.S | re.M)
    return token.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def without_template_heads(stmt):
    """`stmt` without its leading `template <...>` heads (angles counted outside parentheses,
    so that `enable_if_t<(N > 0)>` stays balanced)."""
    while True:
        m = re.match(r"\s*template\s*<", stmt)
        if not m:
            return stmt.strip()
        angle, paren, i = 1, 0, m.end()
        while i < len(stmt) and angle:
            c = stmt[i]
            paren += (c == "(") - (c == ")")
            if paren == 0:
                angle += (c == "<") - (c == ">")
            i += 1
        stmt = stmt[i:]


def function_name(stmt):
    """The name of the function that `stmt` (template heads removed) declares, or None when it
    declares something else (a type, a variable, an alias, an assertion)."""
    if re.match(r"(using|typedef|static_assert|friend|namespace|extern\s+template|"
                r"template\s+(class|struct))\b", stmt):
        return None
    if re.match(r"(inline\s+|constexpr\s+)*(class|struct|union|enum)\b", stmt):
        return None
    m = OPERATOR.search(stmt)
    if m:
        return "operator" + re.sub(r"\s+", "", m.group(1))
    angle, paren = 0, 0
    for i, c in enumerate(stmt):
        if c == "(" and angle == 0 and paren == 0:
            name = re.search(r"(~?[A-Za-z_]\w*(?:\s*::\s*~?[A-Za-z_]\w*)*)\s*$", stmt[:i])
            if not name or name.group(1) in NOT_NAMES:
                # decltype(...) or an attribute before the name: look after its parentheses
                paren = 1
                continue
            if "=" in stmt[:i]:  # a variable initialised by a call
                return None
            return None if "::" in name.group(1) else name.group(1)
        if c in "()":
            paren += 1 if c == "(" else -1
        elif paren == 0 and c in "<>":
            angle += 1 if c == "<" else -1
    return None


def declared_functions(path):
    """(namespace, name, line) of every free function declared at namespace scope in `path`,
    outside namespaces named Impl and anonymous namespaces."""
    code = without_comments(path.read_text())
    scopes, stmt_start, found = [], 0, []  # scopes: ("ns", name) | ("class",) | ("block",)

    def public_namespace():
        return all(s[0] == "ns" and s[1] not in ("Impl", "") for s in scopes)

    for i, c in enumerate(code):
        if c not in "{};":
            continue
        stmt = code[stmt_start:i]
        line = code.count("\n", 0, stmt_start + len(stmt) - len(stmt.lstrip())) + 1
        stmt_start = i + 1
        if c == "}":
            if scopes:
                scopes.pop()
            continue
        head = without_template_heads(" ".join(stmt.split()))
        if c == "{":
            ns = re.fullmatch(r"(inline\s+)?namespace\s*([\w:]*)(\s*\[\[.*\]\])?", head)
            if ns:
                names = ns.group(2).split("::") if ns.group(2) else [""]
                scopes.append(("ns", "::".join(names)))
                continue
            if re.match(r"(class|struct|union|enum)\b", head) and "(" not in head.split(":")[0]:
                scopes.append(("class",))
                continue
        if public_namespace() and head:
            name = function_name(head)
            if name:
                namespace = "::".join(s[1] for s in scopes)
                found.append((namespace, name, line))
        if c == "{":
            scopes.append(("block",))
    return found


def header_functions():
    """{(namespace, name): "path:line"} over the public headers."""
    functions = {}
    include = root / "include"
    for path in sorted(include.rglob("*.hpp")) + sorted(include.rglob("*.hpp.in")):
        if "impl" in path.relative_to(include).parts[:-1]:
            continue
        for namespace, name, line in declared_functions(path):
            functions.setdefault((namespace, name), f"{path.relative_to(root)}:{line}")
    return functions


def text_of(element):
    return "".join(element.itertext()).strip() if element is not None else ""


def reference_functions(docs):
    """{(namespace, name)} of the functions with a documented entry on a namespace's HTML page
    (or, for functions outside any namespace, a file's page) of the reference in `docs`."""
    documented, pages = set(), {}
    index = ElementTree.parse(docs / "xml" / "index.xml").getroot()
    for compound in index.findall("compound"):
        kind = compound.get("kind")
        if kind not in ("namespace", "file"):
            continue
        tree = ElementTree.parse(docs / "xml" / f"{compound.get('refid')}.xml").getroot()
        for definition in tree.iter("compounddef"):
            namespace = text_of(definition.find("compoundname")) if kind == "namespace" else ""
            for member in definition.iter("memberdef"):
                if member.get("kind") != "function" or not (
                        text_of(member.find("briefdescription"))
                        or text_of(member.find("detaileddescription"))):
                    continue
                # id = <page>_1<anchor>: the entry is <a id="<anchor>"> on <page>.html
                page, anchor = member.get("id").rsplit("_1", 1)
                if page not in pages:
                    html = docs / "html" / f"{page}.html"
                    pages[page] = html.read_text(errors="replace") if html.exists() else ""
                if f'id="{anchor}"' in pages[page]:
                    documented.add((namespace, text_of(member.find("name")).replace(" ", "")))
    return documented


def dead_links(html_dir):
    """"page: target" for every href or src of the HTML pages that names a missing file."""
    dead = []
    link = re.compile(r'\b(?:href|src)="([^"#]*)(?:#[^"]*)?"')
    for page in sorted(html_dir.glob("*.html")):
        for target in set(link.findall(page.read_text(errors="replace"))):
            if not target or re.match(r"[a-zA-Z][\w+.-]*:", target):  # in-page or external
                continue
            if not (html_dir / target).exists():
                dead.append(f"{page.name}: {target}")
    return dead


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    docs = pathlib.Path(sys.argv[1])
    declared = header_functions()
    documented = reference_functions(docs)
    missing = sorted(k for k in declared if k not in documented)
    for namespace, name in missing:
        print(f"check-reference: {namespace}::{name} ({declared[(namespace, name)]}) has no "
              f"documented entry in the API reference")
    dead = dead_links(docs / "html")
    for d in dead:
        print(f"check-reference: dead link or picture in {d}")
    print(f"check-reference: {len(declared)} public free functions (by name) in the headers, "
          f"{len(missing)} missing from the reference; {len(dead)} dead links")
    return 1 if missing or dead or not declared else 0


if __name__ == "__main__":
    sys.exit(main())
