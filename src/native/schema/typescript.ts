/**
 * What the schema takes from the TypeScript sources with the compiler API: the TSDoc users read
 * in their editor (Args interfaces, resource classes, data sources), the declared output types of
 * each resource class and the result types of the data sources (which have no zod schema).
 * Development only: `typescript` is a devDependency, and only the schema script and its test load
 * this module.
 */
import { dirname, join } from "node:path";
import ts from "typescript";
import { ANY_TYPE, type ObjectTypeSpec, type PropertySpec, type TypeSpec } from "./spec";
import { type DocTree, nestedTypeName, type TypeRegistry } from "./types";

/** A resource class as its source declares it. */
export interface ClassInfo {
  description: string | undefined;
  /** Declared outputs (`declare readonly x: pulumi.Output<T>`), by name, with T. */
  outputs: Map<string, { description: string | undefined; type: ts.Type }>;
}

/** A data source exported from `src/functions`. */
export interface FunctionInfo {
  name: string;
  description: string | undefined;
  /** The arguments' documentation, when the function takes arguments. */
  args: DocTree | undefined;
  /** The type its promise resolves to. */
  result: ts.Type;
}

/** `{@link Server}` and `{@link Server.ip}` read as code in Markdown. */
function markdown(text: string): string | undefined {
  const out = text.replace(/\{@link\s+([^}\s|]+)(?:\s*\|\s*([^}]+))?\s*\}/g, (_m, target, label) =>
    label === undefined ? `\`${target}\`` : String(label).trim(),
  );
  return out.trim() === "" ? undefined : out.trim();
}

export class SourceReader {
  readonly checker: ts.TypeChecker;
  private readonly program: ts.Program;

  /** `root`: the repository root (with `src/`). */
  constructor(private readonly root: string) {
    const configPath = join(root, "tsconfig.json");
    const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
    this.program = ts.createProgram({
      rootNames: [join(root, "src/index.ts"), join(root, "src/config.ts")],
      options: { ...parsed.options, noEmit: true },
    });
    this.checker = this.program.getTypeChecker();
  }

  private sourceFile(relative: string): ts.SourceFile {
    const file = this.program.getSourceFile(join(this.root, relative));
    if (file === undefined) throw new Error(`schema: ${relative} is not part of the program`);
    return file;
  }

  private doc(symbol: ts.Symbol): string | undefined {
    return markdown(ts.displayPartsToString(symbol.getDocumentationComment(this.checker)));
  }

  private exported(relative: string, name: string): ts.Symbol {
    const file = this.sourceFile(relative);
    const module = this.checker.getSymbolAtLocation(file);
    const found = module && this.checker.getExportsOfModule(module).find((s) => s.name === name);
    if (found === undefined) throw new Error(`schema: ${relative} exports no ${name}`);
    return found.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(found) : found;
  }

  /** The documentation of an exported interface's properties, following nested interfaces. */
  interfaceDocs(relative: string, name: string): DocTree {
    return this.docTreeOf(this.exported(relative, name));
  }

  private docTreeOf(symbol: ts.Symbol): DocTree {
    const tree: DocTree = { properties: {} };
    const description = this.doc(symbol);
    if (description !== undefined) tree.description = description;
    const type = this.checker.getDeclaredTypeOfSymbol(symbol);
    for (const property of this.checker.getPropertiesOfType(type)) {
      const entry: { description?: string; nested?: DocTree } = {};
      const text = this.doc(property);
      if (text !== undefined) entry.description = text;
      const declaration = property.valueDeclaration;
      if (declaration !== undefined && ts.isPropertySignature(declaration) && declaration.type) {
        const nested = this.referencedInterface(declaration.type);
        if (nested !== undefined) entry.nested = this.docTreeOf(nested);
      }
      tree.properties[property.name] = entry;
    }
    return tree;
  }

  /** The first interface of this package's sources a type annotation mentions (through `Input<...>[]`). */
  private referencedInterface(node: ts.TypeNode): ts.Symbol | undefined {
    let found: ts.Symbol | undefined;
    const visit = (n: ts.Node): void => {
      if (found !== undefined) return;
      if (ts.isTypeReferenceNode(n)) {
        const symbol = this.checker.getSymbolAtLocation(n.typeName);
        const target =
          symbol && symbol.flags & ts.SymbolFlags.Alias
            ? this.checker.getAliasedSymbol(symbol)
            : symbol;
        const file = target?.declarations?.[0]?.getSourceFile().fileName ?? "";
        if (
          target !== undefined &&
          target.flags & ts.SymbolFlags.Interface &&
          file.startsWith(join(this.root, "src"))
        ) {
          found = target;
          return;
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
    return found;
  }

  /** A resource class: its description and declared outputs. */
  classInfo(relative: string, name: string): ClassInfo {
    const symbol = this.exported(relative, name);
    const declaration = symbol.valueDeclaration;
    if (declaration === undefined || !ts.isClassDeclaration(declaration)) {
      throw new Error(`schema: ${name} in ${relative} is not a class`);
    }
    const outputs: ClassInfo["outputs"] = new Map();
    for (const member of declaration.members) {
      if (!ts.isPropertyDeclaration(member) || member.type === undefined) continue;
      const outputType = member.type;
      if (!ts.isTypeReferenceNode(outputType) || !outputType.typeName.getText().endsWith("Output"))
        continue;
      const inner = outputType.typeArguments?.[0];
      const memberSymbol = this.checker.getSymbolAtLocation(member.name);
      if (inner === undefined || memberSymbol === undefined) continue;
      outputs.set(member.name.getText(), {
        description: this.doc(memberSymbol),
        type: this.checker.getTypeFromTypeNode(inner),
      });
    }
    return { description: this.doc(symbol), outputs };
  }

  /** The data sources `src/functions/index.ts` exports: `getX`, not their `getXOutput` twins. */
  functions(): FunctionInfo[] {
    const file = this.sourceFile("src/functions/index.ts");
    const module = this.checker.getSymbolAtLocation(file);
    if (module === undefined) throw new Error("schema: src/functions/index.ts has no exports");
    const out: FunctionInfo[] = [];
    for (const exported of this.checker.getExportsOfModule(module)) {
      const name = exported.name;
      if (!/^get[A-Z]/.test(name) || name.endsWith("Output")) continue;
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(exported) : exported;
      const signature = this.checker
        .getSignaturesOfType(this.checker.getTypeOfSymbol(symbol), ts.SignatureKind.Call)
        .at(0);
      if (signature === undefined) continue;
      const first = signature.getParameters()[0];
      const firstDeclaration = first?.valueDeclaration;
      let args: DocTree | undefined;
      if (
        first?.name === "args" &&
        firstDeclaration !== undefined &&
        ts.isParameter(firstDeclaration) &&
        firstDeclaration.type !== undefined
      ) {
        const argsInterface = this.referencedInterface(firstDeclaration.type);
        if (argsInterface === undefined)
          throw new Error(`schema: ${name}: args is not an interface`);
        args = this.docTreeOf(argsInterface);
      }
      const returned = this.checker.getReturnTypeOfSignature(signature);
      const result =
        (returned.flags & ts.TypeFlags.Object) !== 0
          ? this.checker.getTypeArguments(returned as ts.TypeReference)[0]
          : undefined;
      if (result === undefined) throw new Error(`schema: ${name} does not return a promise`);
      out.push({ name, description: this.doc(symbol), args, result });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * The Pulumi type of a TypeScript type, and whether `undefined` is part of it. Anonymous object
   * types are named after `owner` and `property` (./types.ts); a named interface keeps its name.
   */
  typeOf(
    type: ts.Type,
    owner: string,
    property: string,
    registry: TypeRegistry,
    arrayItem = false,
  ): { type: TypeSpec; optional: boolean } {
    const checker = this.checker;
    const nullish = ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void;
    if (type.isUnion()) {
      const present = type.types.filter((t) => (t.flags & nullish) === 0);
      const optional = present.length !== type.types.length;
      const all = (flags: ts.TypeFlags) => present.every((t) => (t.flags & flags) !== 0);
      if (all(ts.TypeFlags.StringLike)) return { type: { type: "string" }, optional };
      if (all(ts.TypeFlags.NumberLike)) return { type: { type: "number" }, optional };
      if (all(ts.TypeFlags.BooleanLike)) return { type: { type: "boolean" }, optional };
      const variants = present.map(
        (t) => this.typeOf(t, owner, property, registry, arrayItem).type,
      );
      const distinct = [...new Map(variants.map((v) => [JSON.stringify(v), v])).values()];
      const only = distinct.length === 1 ? distinct[0] : undefined;
      return { type: only ?? { oneOf: distinct }, optional };
    }
    if (type.flags & ts.TypeFlags.StringLike) return { type: { type: "string" }, optional: false };
    if (type.flags & ts.TypeFlags.NumberLike) return { type: { type: "number" }, optional: false };
    if (type.flags & ts.TypeFlags.BooleanLike)
      return { type: { type: "boolean" }, optional: false };
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type as ts.TypeReference)[0];
      const items =
        element === undefined
          ? ANY_TYPE
          : this.typeOf(element, owner, property, registry, true).type;
      return { type: { type: "array", items }, optional: false };
    }
    if (type.flags & ts.TypeFlags.Object) {
      const properties = checker.getPropertiesOfType(type);
      const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
      if (properties.length === 0 && index !== undefined) {
        const values = this.typeOf(index.type, owner, property, registry).type;
        return { type: { type: "object", additionalProperties: values }, optional: false };
      }
      const symbol = type.aliasSymbol ?? type.getSymbol();
      const named =
        symbol !== undefined && (symbol.flags & ts.SymbolFlags.Interface) !== 0
          ? symbol.name
          : nestedTypeName(owner, property, arrayItem);
      // The input side defined it already (from zod): one type per property, same property names.
      const known = registry.has(named);
      const spec = known
        ? {
            type: "object" as const,
            properties: Object.fromEntries(properties.map((p) => [p.name, {}])),
          }
        : this.objectOf(type, named, registry);
      if (!known) registry.fromDeclarations.add(named);
      return { type: registry.define(named, spec), optional: false };
    }
    return { type: ANY_TYPE, optional: false };
  }

  /** The object type spec of a TypeScript object type, described from its TSDoc. */
  objectOf(type: ts.Type, name: string, registry: TypeRegistry): ObjectTypeSpec {
    const properties: Record<string, PropertySpec> = {};
    const required: string[] = [];
    for (const property of this.checker.getPropertiesOfType(type)) {
      const mapped = this.typeOf(
        this.checker.getTypeOfSymbol(property),
        name,
        property.name,
        registry,
      );
      const spec: PropertySpec = { ...mapped.type };
      const text = this.doc(property);
      if (text !== undefined) spec.description = text;
      properties[property.name] = spec;
      if (!mapped.optional && (property.flags & ts.SymbolFlags.Optional) === 0) {
        required.push(property.name);
      }
    }
    const out: ObjectTypeSpec = { type: "object", properties };
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const description = symbol === undefined ? undefined : this.doc(symbol);
    if (description !== undefined) out.description = description;
    if (required.length > 0) out.required = required;
    return out;
  }
}
