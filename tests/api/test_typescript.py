"""Generated TypeScript types are exact (issue 23): `openapi-typescript` (its defaults) turns
the served spec into `schema.d.ts`, and `tsc --strict --noEmit` accepts the committed program
`app/check.ts`, which uses every operation through `openapi-fetch` as a
front-end would, with no cast and no `any`, and every request and response example of the
spec, each typed as its operation's body or answer.

The tools are pinned by app/package-lock.json and installed by
`deploy/setup.sh dev` (deploy/ensure-typescript.sh). About a minute on two cores.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from api.app import spec_dict
from tests.conftest import ROOT

CLIENT = ROOT / "app"
BIN = CLIENT / "node_modules" / ".bin"
PROGRAM = CLIENT / "check.ts"

#: What the program may not hold (outside comments and strings): a cast (`x as T`, `<T>x`), a
#: non-null assertion (`x!`), `any`, or a silenced check.
_FORBIDDEN = {
    "a cast (`as`)": re.compile(r"\bas\s+(?!const\b)[A-Za-z_{[(]"),
    "`as const`": re.compile(r"\bas\s+const\b"),
    "an angle-bracket cast": re.compile(r"(?<![\w$.])<[A-Z][\w.\[\]\"' ]*>\s*[\w$(]"),
    "a non-null assertion": re.compile(r"[\w)\]]!(?=[.;,)\]\s])(?!=)"),
    "`any`": re.compile(r"\bany\b"),
    "`@ts-ignore` or `@ts-nocheck`": re.compile(r"@ts-(ignore|nocheck)"),
}
_COMMENT_OR_STRING = re.compile(
    r"//(?!\s*@ts-)[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`",
    re.DOTALL,
)


def shortcuts(source: str) -> list[str]:
    """What `source` holds of :data:`_FORBIDDEN`, comments and string contents aside."""
    code = _COMMENT_OR_STRING.sub(lambda m: '""' if m.group(0)[0] in "\"'`" else "", source)
    return [what for what, pattern in _FORBIDDEN.items() if pattern.search(code)]


def test_shortcuts_are_found() -> None:
    assert shortcuts("const a = b as string;") == ["a cast (`as`)"]
    assert shortcuts("const a = b as const;") == ["`as const`"]
    assert shortcuts("const a = <View>b;") == ["an angle-bracket cast"]
    assert shortcuts("const a = b!.c;") == ["a non-null assertion"]
    assert shortcuts("let a: any = 1;") == ["`any`"]
    assert shortcuts("// @ts-ignore\nx();") == ["`@ts-ignore` or `@ts-nocheck`"]
    clean = (
        "// any cast as Foo is described here\n"
        'const s = "as any";\n'
        "if (a !== b && !c) { f<string>(x); }\n"
        "const t = `${x} as ${y}`;\n"
        "// @ts-expect-error: refused\n"
    )
    assert shortcuts(clean) == []


def test_the_program_takes_no_shortcut() -> None:
    assert shortcuts(PROGRAM.read_text(encoding="utf-8")) == []


def _ts_path(path: str) -> str:
    return json.dumps(path)


def examples_program(spec: dict[str, Any]) -> tuple[str, int]:
    """A TypeScript module declaring every example of the spec, request bodies and answers,
    typed as its operation's `paths[…]` entry; and how many it declares."""
    lines = [
        'import type { paths } from "./schema";',
        'type Body<T> = T extends { content: { "application/json": infer B } } ? B : never;',
        "",
    ]
    count = 0
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            where = f"paths[{_ts_path(path)}][{json.dumps(method)}]"
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                values = [e["value"] for e in (body.get("examples") or {}).values()]
                values += body.get("schema", {}).get("examples", [])
                if "example" in body:
                    values.append(body["example"])
                for value in values:
                    target = f'Body<NonNullable<{where}["requestBody"]>>'
                    lines.append(f"export const e{count}: {target} = {json.dumps(value)};")
                    count += 1
            for status, response in operation.get("responses", {}).items():
                for media_type, media in (response.get("content") or {}).items():
                    if not media_type.endswith("json"):
                        continue
                    answer = f'{where}["responses"][{status}]["content"][{json.dumps(media_type)}]'
                    for example in (media.get("examples") or {}).values():
                        value = json.dumps(example["value"])
                        lines.append(f"export const e{count}: {answer} = {value};")
                        count += 1
    return "\n".join(lines) + "\n", count


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_generated_types_take_the_program_and_every_example(tmp_path: Path) -> None:
    if not (BIN / "tsc").exists() or not (BIN / "openapi-typescript").exists():
        pytest.fail("app is not installed: run `bash deploy/setup.sh dev`")
    spec = spec_dict()
    (tmp_path / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(CLIENT / "node_modules", target_is_directory=True)
    generated = _run(
        [str(BIN / "openapi-typescript"), "openapi.json", "-o", "schema.d.ts"], tmp_path
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    shutil.copy(PROGRAM, tmp_path / "check.ts")
    examples, count = examples_program(spec)
    assert count >= 60, count
    (tmp_path / "examples.ts").write_text(examples, encoding="utf-8")
    config = json.loads((CLIENT / "tsconfig.json").read_text(encoding="utf-8"))
    assert config["compilerOptions"]["strict"] is True
    config["files"] = ["check.ts", "examples.ts"]
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    checked = _run([str(BIN / "tsc"), "--strict", "--noEmit", "-p", "."], tmp_path)
    assert checked.returncode == 0, checked.stdout[-4000:] + checked.stderr[-2000:]


def test_the_generate_script_reads_the_committed_spec() -> None:
    """`npm run generate` in app/ (the README's way to get schema.d.ts) names a spec that is
    there: the committed one (it named ../../openapi/openapi.json, outside the repository, once
    the package moved to app/)."""
    package = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    words = package["scripts"]["generate"].split()
    assert words[0] == "openapi-typescript"
    spec = next(word for word in words[1:] if word.endswith(".json"))
    assert (CLIENT / spec).resolve() == ROOT / "openapi" / "openapi.json"
    assert words[words.index("-o") + 1] == "schema.d.ts"
