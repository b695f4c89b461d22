"""The spec's types made exact for generated clients (issue 23): what a front-end built on
`openapi-typescript` (its defaults) gets must be what the server sends and takes.

Run on the finished spec (after the areas' own `document_*`), from the registry and the
msgspec structs behind the components, never naming a ruleset:

* a new game's and a new sheet's body is one variant per ruleset (`CreateNumWarsGame` …),
  discriminated by `ruleset`, whose `options` are that ruleset's options (the `options` of
  its `deal` request), not a bare object;
* each view states its `ruleset` as a constant and has its own title, and every `view` is
  the union of the views discriminated by `ruleset`;
* a sheet round's `input` is one of the rulesets' `score-round` requests;
* a response's `ruleset` (and a catalogue entry's `id`) lists the ruleset ids;
* a field the server always sends is `required` (a struct without `omit_defaults`, a field
  whose default is not `UNSET`): nullable fields are `T | null`, never optional;
* a struct with alternatives (`allOf` a struct and `anyOf` some bounds, numwin's hands) is
  the struct *and* one of the alternatives, which generators render as an intersection;
* a field that may be left out keeps its `default` one level down, `allOf` its schema and
  `{"default": …}`: generators that read a property's `default` as "always present"
  (openapi-typescript's `defaultNonNullable`, for components) leave it optional, JSON Schema
  reads it the same, and linters see no composition of one schema.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from typing import Any

import msgspec
from litestar import Litestar
from litestar.openapi.spec import (
    Discriminator,
    Example,
    OpenAPI,
    Reference,
    RequestBody,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType

from api.http.body import _to_schema, ruleset_enum
from api.rules.schemas import GAME_OPTION_DOCS, GameOptions
from engine.core.spec import RulesetSpec
from engine.core.texts import KINDS
from engine.registry import SPECS

_REF = "#/components/schemas/"

#: The bodies made one variant per ruleset: component → the noun of its variants' names.
_BY_RULESET = {"CreateGame": "Game", "CreateSheet": "Sheet"}
#: The sheet answers whose `input` is a complete `score-round` request.
_ROUND_INPUTS = ("RoundOut", "RoundAnswer")


def _prefix(spec: RulesetSpec) -> str:
    """A ruleset's name in component names: its view's (`NumWarsView` → `NumWars`)."""
    return spec.view_component.removesuffix("View")


def options_component(spec: RulesetSpec) -> str:
    """The component of a ruleset's options as a request states them: the `options` of its
    `deal` request, which takes every option (checked: the same fields as the rules' own)."""
    request = msgspec.inspect.type_info(spec.operation("deal").request)
    assert isinstance(request, msgspec.inspect.StructType)
    found: Any = next(f.type for f in request.fields if f.name == "options")
    while isinstance(found, msgspec.inspect.Metadata):
        found = found.type
    assert isinstance(found, msgspec.inspect.StructType), spec.id
    cls = found.cls
    assert set(cls.__struct_fields__) == set(spec.options.__struct_fields__), spec.id
    return cls.__name__


def _game_options(schemas: dict[str, Schema], spec: RulesetSpec, options: str) -> str:
    """The component of a stored game's options (`<Prefix>GameOptions`): the ruleset's
    options (`options`, the component) and the service's own (:class:`GameOptions`: `hints`),
    each with its default and description, no other field."""
    name = f"{_prefix(spec)}GameOptions"
    rules = copy.deepcopy(schemas[options])  # its own nodes: later passes change them in place
    own = msgspec.json.schema(GameOptions)["$defs"]["GameOptions"]["properties"]
    properties = dict(rules.properties or {})
    for key, value in own.items():
        built = _to_schema(
            {**value, "description": GAME_OPTION_DOCS[key]}, lambda ref: Reference(ref=ref)
        )
        properties[key] = built
    schemas[name] = dataclasses.replace(
        rules,
        title=name,
        description=(
            f"The options of a stored `{spec.id}` game: the ruleset's (`{options}`, as every "
            "operation of the ruleset takes them) and the service's own (`hints`)."
        ),
        properties=properties,
    )
    return name


def _by_ruleset(schemas: dict[str, Schema], name: str, noun: str) -> None:
    base = schemas[name]
    variants: dict[str, str] = {}
    for ruleset_id, spec in SPECS.items():
        variant = f"Create{_prefix(spec)}{noun}"
        options = options_component(spec)
        assert options in schemas, options
        properties = dict(base.properties or {})
        properties["ruleset"] = Schema(type=OpenAPIType.STRING, const=ruleset_id)
        if noun == "Game":  # a stored game takes the service's options too (`hints`)
            options = _game_options(schemas, spec, options)
        properties["options"] = Reference(ref=_REF + options)
        schemas[variant] = dataclasses.replace(
            base,
            title=variant,
            description=f"{base.description} For `{ruleset_id}`: its options are `{options}`.",
            properties=properties,
        )
        variants[ruleset_id] = _REF + variant
    description = base.description
    for f in dataclasses.fields(Schema):
        setattr(base, f.name, None)
    base.title = name
    base.description = f"{description} One variant per ruleset, chosen by `ruleset`."
    base.one_of = [Reference(ref=ref) for ref in variants.values()]
    base.discriminator = Discriminator(property_name="ruleset", mapping=variants)


def _own_actions(legal: Schema | Reference, spec: RulesetSpec) -> Schema:
    """A view's `legal_actions` (a list of any action, or null) as the list of the actions
    its ruleset takes (`spec.actions`), still discriminated by `type`, or null."""
    built = copy.deepcopy(legal)
    assert isinstance(built, Schema)
    items = [
        node for node in _walk(built) if node.discriminator is not None and node.any_of is not None
    ]
    assert len(items) == 1, spec.id
    union = items[0]
    found: Any = union.discriminator
    every = found["mapping"] if isinstance(found, dict) else found.mapping
    mapping = {kind: every[kind] for kind in spec.actions}
    union.any_of = [Reference(ref=ref) for ref in mapping.values()]
    union.discriminator = Discriminator(property_name="type", mapping=mapping)
    return built


def _views(schemas: dict[str, Schema]) -> None:
    """Each view states its ruleset, its phases and its own actions (a generated client's
    `if (view.ruleset === "numwars")` narrows `phase` and `legal_actions` too)."""
    mapping = {spec.id: _REF + spec.view_component for spec in SPECS.values()}
    for spec in SPECS.values():
        view = schemas[spec.view_component]
        view.title = spec.view_component
        assert view.properties is not None
        view.properties["ruleset"] = Schema(type=OpenAPIType.STRING, const=spec.id)
        view.properties["phase"] = Schema(
            type=OpenAPIType.STRING,
            enum=list(spec.phases),
            description="the round's phase (`over` once it is over); new phases may be added",
        )
        view.properties["legal_actions"] = _own_actions(view.properties["legal_actions"], spec)
    refs = set(mapping.values())
    for node in _walk(schemas):
        if node.one_of and {getattr(o, "ref", None) for o in node.one_of} == refs:
            node.discriminator = Discriminator(property_name="ruleset", mapping=mapping)


def _line_kinds(schemas: dict[str, Schema]) -> None:
    """A breakdown line's `kind` is one of the registered kinds (engine.core.texts.KINDS,
    every ruleset's): a front-end switches over them to render or translate a line."""
    line = schemas.get("ScoreLine")
    if line is None or not line.properties or "kind" not in line.properties:
        return
    line.properties["kind"] = Schema(
        type=OpenAPIType.STRING,
        enum=sorted(KINDS),
        description="the line's stable key (its `params` are that text's parameters); "
        "new kinds may be added: keep a default branch",
    )


def _round_inputs(schemas: dict[str, Schema]) -> None:
    requests = [spec.operation("score-round").request.__name__ for spec in SPECS.values()]
    for name in _ROUND_INPUTS:
        properties = schemas[name].properties
        assert properties is not None
        assert all(request in schemas for request in requests), requests
        properties["input"] = Schema(
            any_of=[Reference(ref=_REF + request) for request in requests],
            description="the complete `score-round` request of the sheet's ruleset",
        )


def _walk(node: object) -> Iterator[Schema]:
    """Every `Schema` in `node` (a schema, a list or a dict of them), depth first."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _walk(value)
    elif isinstance(node, Schema):
        yield node
        for f in dataclasses.fields(Schema):
            value = getattr(node, f.name)
            if isinstance(value, Schema | list | dict):
                yield from _walk(value)


def _reached(spec: dict[str, Any], part: str) -> set[str]:
    """The components the operations' `part` (`requestBody`, `responses`) reach."""
    components = spec["components"]["schemas"]
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(_REF):
                name = ref.removeprefix(_REF)
                if name not in found:
                    found.add(name)
                    walk(components[name])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for item in spec["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict):
                walk(operation.get(part))
    return found


def _structs() -> dict[str, list[type[msgspec.Struct]]]:
    """Every msgspec struct class defined so far, by name; the views by component name."""
    found: dict[str, list[type[msgspec.Struct]]] = {}
    todo: list[type[msgspec.Struct]] = [msgspec.Struct]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        found.setdefault(cls.__name__, []).append(cls)
    for spec in SPECS.values():
        found[spec.view_component] = [spec.view]
    return found


def _always_sent(cls: type[msgspec.Struct]) -> set[str]:
    """The fields `cls` always encodes: all but those defaulting to `UNSET`, or only those
    without a default when it omits defaults."""
    names = cls.__struct_encode_fields__
    defaults = cls.__struct_defaults__
    with_default = dict(zip(names[len(names) - len(defaults) :], defaults, strict=True))
    if cls.__struct_config__.omit_defaults:
        return set(names) - set(with_default)
    return {name for name in names if with_default.get(name) is not msgspec.UNSET}


def _has(node: object, key: str) -> bool:
    if isinstance(node, dict):
        return key in node or any(_has(value, key) for value in node.values())
    if isinstance(node, list):
        return any(_has(value, key) for value in node)
    return False


def _enums(component: Schema, cls: type[msgspec.Struct]) -> None:
    """The closed sets msgspec states of `cls`'s fields (a `Meta`'s `enum`, a `Literal`),
    which Litestar's own schema of a response struct leaves out."""
    try:
        (ref,), found = msgspec.json.schema_components([cls], ref_template=_REF + "{name}")
    except TypeError:  # a field of a type msgspec has no schema for (`object`): none to take
        return
    own = found[ref["$ref"].removeprefix(_REF)]
    properties = component.properties or {}
    for key, value in (own.get("properties") or {}).items():
        if key in properties and _has(value, "enum") and not _has(value, "$ref"):
            built = _to_schema(value, lambda ref: Reference(ref=ref))
            assert isinstance(built, Schema)
            properties[key] = built


def _required_when_sent(schemas: dict[str, Schema], names: set[str]) -> None:
    structs = _structs()
    for name in sorted(names):
        component = schemas.get(name)
        if component is None or not component.properties:
            continue
        fields = set(component.properties)
        candidates = [
            cls for cls in structs.get(name, []) if set(cls.__struct_encode_fields__) == fields
        ]
        sent = {frozenset(_always_sent(cls)) for cls in candidates}
        if len(sent) != 1:  # no struct behind it, or two that disagree: left as it is
            continue
        component.required = sorted(set(component.required or ()) | set(next(iter(sent))))
        _enums(component, candidates[0])


def _rulesets(schemas: dict[str, Schema], names: set[str]) -> None:
    for name in names:
        properties = schemas[name].properties or {}
        keys = ["ruleset", "id"] if name == "RulesetInfo" else ["ruleset"]
        for key in keys:
            found = properties.get(key)
            if (
                isinstance(found, Schema)
                and found.type == OpenAPIType.STRING
                and found.enum is None
                and found.const is None
            ):
                ids = ruleset_enum()
                ids.type = OpenAPIType.STRING
                properties[key] = ids


def _intersections(schemas: dict[str, Schema]) -> None:
    for node in list(_walk(schemas)):
        if node.all_of and node.any_of and len(node.all_of) == 1:
            node.all_of = [node.all_of[0], Schema(any_of=node.any_of)]
            node.any_of = None


def _optional_defaults(schemas: dict[str, Schema]) -> None:
    for node in list(_walk(schemas)):
        required = set(node.required or ())
        properties = node.properties or {}
        for key, value in properties.items():
            if key in required or not isinstance(value, Schema) or value.default is None:
                continue
            description, value.description = value.description, None
            default, value.default = value.default, None
            if value.all_of and len(value.all_of) == 1:  # a reference with its default
                value = value.all_of[0]
            properties[key] = Schema(
                all_of=[value, Schema(default=default)], description=description
            )


def _direct_bodies(spec: OpenAPI, names: set[str]) -> None:
    """A request body that is one of `names` refers to it directly, its examples on the media
    type: generators read `allOf: [one reference]` as inheritance and drop the discriminator
    from it (openapi-typescript: `Omit<CreateGame, "ruleset">`, which no longer chooses)."""
    for item in (spec.paths or {}).values():
        for method in ("post", "put", "patch"):
            operation = getattr(item, method)
            body = operation.request_body if operation is not None else None
            if not isinstance(body, RequestBody):
                continue
            for media in (body.content or {}).values():
                schema = media.schema
                if not isinstance(schema, Schema) or not schema.all_of or len(schema.all_of) != 1:
                    continue
                target = schema.all_of[0]
                if isinstance(target, Reference) and target.ref.removeprefix(_REF) in names:
                    media.schema = target
                    media.examples = {
                        f"example-{i}": Example(value=value)
                        for i, value in enumerate(schema.examples or [], start=1)
                    }


def exact_types(application: Litestar) -> None:
    components = application.openapi_schema.components
    assert components is not None and components.schemas is not None
    schemas: dict[str, Schema] = components.schemas
    for name, noun in _BY_RULESET.items():
        _by_ruleset(schemas, name, noun)
    _direct_bodies(application.openapi_schema, set(_BY_RULESET))
    _views(schemas)
    _round_inputs(schemas)
    _line_kinds(schemas)
    rendered = application.openapi_schema.to_schema()
    answers = _reached(rendered, "responses") - _reached(rendered, "requestBody")
    _rulesets(schemas, answers)
    _required_when_sent(schemas, answers)
    _intersections(schemas)
    _optional_defaults(schemas)
