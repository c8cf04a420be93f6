// What the CEL tests share: JSON <-> CEL values, evaluation with the strings extension (as the
// API server's CEL environment has it), and a ValidatingAdmissionPolicy's verdict on a request.
import { run } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";

// JSON -> CEL values: objects become Maps (CEL maps), integers stay numbers.
export const cel = (v) =>
  Array.isArray(v) ? v.map(cel)
  : v !== null && typeof v === "object" ? new Map(Object.entries(v).map(([k, x]) => [k, cel(x)]))
  : v;

// CEL values (the evaluator's lists and maps, or JS ones) -> JSON.
export const js = (v) =>
  Array.isArray(v) ? v.map(js)
  : v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [k, js(x)]))
  : v !== null && typeof v === "object" && typeof v.entries === "function"
    ? Object.fromEntries([...v.entries()].map(([k, x]) => [k, js(x)]))
  : v !== null && typeof v === "object" && typeof v[Symbol.iterator] === "function" ? [...v].map(js)
  : v;

export const evaluate = (expression, bindings) => run(expression, bindings, { funcs: strings });

// The policy's verdict for `request` (JSON: userInfo, operation, subResource) on a Node pair:
// "not matched", "allowed" or the first failing validation's message.
export function admissionVerdict(policy, request, oldNode, newNode) {
  const base = { request: cel(request), object: cel(newNode), oldObject: cel(oldNode) };
  for (const c of policy.spec.matchConditions ?? [])
    if (evaluate(c.expression, base) !== true) return "not matched";
  const variables = new Map();
  for (const v of policy.spec.variables ?? [])
    variables.set(v.name, evaluate(v.expression, { ...base, variables }));
  for (const v of policy.spec.validations) {
    const result = evaluate(v.expression, { ...base, variables });
    if (typeof result !== "boolean") throw new Error(`not a bool (${result}) from: ${v.expression}`);
    if (!result) return v.message;
  }
  return "allowed";
}

// A policy variable whose expression holds constants only (the pool, the writers, the names the
// generator put there), as JSON; `file` names the policy in the error when it has no such variable.
export function policyConstant(policy, file, name) {
  const v = (policy.spec.variables ?? []).find((x) => x.name === name);
  if (!v) throw new Error(`${file}: no variable ${name}`);
  return js(evaluate(v.expression, {}));
}
