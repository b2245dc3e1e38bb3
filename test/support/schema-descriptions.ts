/**
 * What a package schema's descriptions may name. They reach users of every language (generated
 * SDK docs, the registry, editors), so they say what a user needs and name only what a user can
 * reach: the schema's own resources, functions, types and properties, and what the package's
 * entry points export. A name declared in the sources but exported by no entry point (a class
 * of the implementation, a helper) is an internal, and so is any TSDoc tag left unconverted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every description of a schema, with where it is. */
export function descriptionsOf(schema: Json): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  const walk = (node: unknown, where: string) => {
    if (Array.isArray(node)) for (const [i, v] of node.entries()) walk(v, `${where}[${i}]`);
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "description" && typeof value === "string") out.push({ where, text: value });
      else walk(value, where === "" ? key : `${where}.${key}`);
    }
  };
  walk(schema, "");
  return out;
}

/** The names a schema itself defines: resources, functions, types (last token part), properties. */
function schemaNames(schema: Json): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown, parentKey: string) => {
    if (Array.isArray(node)) for (const v of node) walk(v, parentKey);
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (["resources", "functions", "types"].includes(parentKey)) {
        const name = key.split(":").at(-1) ?? key;
        names.add(name);
        names.add(`${name.charAt(0).toLowerCase()}${name.slice(1)}`);
      }
      if (["properties", "inputProperties", "variables"].includes(parentKey)) names.add(key);
      walk(value, key);
    }
  };
  walk(schema, "");
  return names;
}

/**
 * The names the sources under `root` declare at the top level of a module but the package's
 * entry points (package.json `exports`, as built from src/) do not export.
 */
export function internalNames(root: string): Set<string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, string | { types?: string }>;
  };
  const entries = Object.values(pkg.exports)
    .map((e) => (typeof e === "string" ? e : (e.types ?? "")))
    .filter((p) => p.startsWith("./dist/") && p.endsWith(".d.ts"))
    .map((p) => join(root, p.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts")));
  const config = ts.readConfigFile(join(root, "tsconfig.json"), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram({
    rootNames: entries,
    options: { ...parsed.options, noEmit: true },
  });
  const checker = program.getTypeChecker();
  const exported = new Set<string>();
  for (const entry of entries) {
    const file = program.getSourceFile(entry);
    const module = file && checker.getSymbolAtLocation(file);
    if (module) for (const s of checker.getExportsOfModule(module)) exported.add(s.name);
  }
  const declared = new Set<string>();
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(join(root, "src"))) continue;
    for (const statement of file.statements) {
      if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations)
          if (ts.isIdentifier(d.name)) declared.add(d.name.text);
      } else if (
        (ts.isClassDeclaration(statement) ||
          ts.isFunctionDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name !== undefined
      ) {
        declared.add(statement.name.text);
      }
    }
  }
  return new Set([...declared].filter((n) => !exported.has(n)));
}

/**
 * One line per description that names an internal: a TSDoc tag (`{@link ...}`, `@see`, ...) or
 * code (a backticked span) that starts with an internal name and is nothing the schema defines.
 */
export function descriptionProblems(schema: Json, internal: ReadonlySet<string>): string[] {
  const own = schemaNames(schema);
  const problems: string[] = [];
  for (const { where, text } of descriptionsOf(schema)) {
    for (const tag of text.match(/\{@\w+[^}]*\}|(?:^|\s)@(?:see|link|internal|param|returns)\b/g) ??
      [])
      problems.push(`${where}: a TSDoc tag ${tag.trim()}`);
    for (const [, code] of text.matchAll(/`([^`]+)`/g)) {
      const head = /^([A-Za-z_$][\w$]*)(?=[.(]|$)/.exec(code ?? "")?.[1];
      if (head !== undefined && internal.has(head) && !own.has(head))
        problems.push(`${where}: \`${code}\` names ${head}, an internal of the sources`);
    }
  }
  return problems;
}
