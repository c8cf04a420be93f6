// Evaluates the CEL of the health check's ValidatingAdmissionPolicy (templates/admission/) with a
// CEL implementation (@bufbuild/cel) against old/new Node pairs, as the API server would for a
// request of the health service account: the marks it writes pass, anything else is denied, and
// other users' requests do not match. What this does not reproduce: the API server's type check
// of the expressions against the Node's OpenAPI schema and its cost limits (there the objects
// are typed; here they are maps, which `has()` and `==` treat alike).
// Usage: node vap-node-marks.test.mjs POLICY.yaml
import { run } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { readFileSync } from "node:fs";
import { parse } from "yaml";

const policy = parse(readFileSync(process.argv[2], "utf8"));
if (policy.kind !== "ValidatingAdmissionPolicy") throw new Error(`${process.argv[2]}: not a ValidatingAdmissionPolicy`);

// JSON -> CEL values: objects become Maps (CEL maps), integers stay numbers.
const cel = (v) =>
  Array.isArray(v) ? v.map(cel)
  : v !== null && typeof v === "object" ? new Map(Object.entries(v).map(([k, x]) => [k, cel(x)]))
  : v;

const opts = { funcs: strings };
function evaluate(expression, bindings) {
  return run(expression, bindings, opts);
}

// The policy's verdict for one request: "not matched", "allowed" or the first failing message.
function verdict(username, oldNode, newNode) {
  const request = cel({ userInfo: { username }, operation: "UPDATE" });
  const base = { request, object: cel(newNode), oldObject: cel(oldNode) };
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

const users = (policy.spec.matchConditions[0].expression.match(/'([^']+)'/g) ?? []).map((s) => s.slice(1, -1));
if (users.length === 0) throw new Error("the match condition names no service account");
const health = users[0];

const node = () => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: {
    name: "gpu-1",
    labels: { "kubernetes.io/hostname": "gpu-1", "nvidia.com/gpu.present": "true" },
    annotations: { "node.alpha.kubernetes.io/ttl": "0" },
  },
  spec: { taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }] },
});
const marked = () => {
  const n = node();
  n.metadata.labels["hkimgen.io/nccl-health"] = "fail";
  n.metadata.annotations["hkimgen.io/nccl-health-reason"] = "rail mlx5_3: 12 GB/s";
  n.spec.taints.push({ key: "hkimgen.io/nccl-health", value: "fail", effect: "NoSchedule" });
  return n;
};
const change = (f) => { const n = node(); f(n); return n; };

const cases = [
  ["marks a node failed (label, reason, taint)", health, node(), marked(), "allowed"],
  ["releases a node (marks removed)", health, marked(), node(), "allowed"],
  ["relabels pass, counts passes", health, marked(),
    (() => { const n = marked(); n.metadata.labels["hkimgen.io/nccl-health"] = "pass";
      n.metadata.annotations["hkimgen.io/nccl-health-passes"] = "1"; return n; })(), "allowed"],
  ["marks a node with no labels, annotations or taints", health,
    { metadata: { name: "bare" }, spec: {} },
    { metadata: { name: "bare", labels: { "hkimgen.io/nccl-health": "pass" } }, spec: {} }, "allowed"],
  ["adds another label", health, node(), change((n) => { n.metadata.labels["role"] = "x"; }), /labels/],
  ["changes another label", health, node(),
    change((n) => { n.metadata.labels["nvidia.com/gpu.present"] = "false"; }), /labels/],
  ["removes another label", health, node(),
    change((n) => { delete n.metadata.labels["kubernetes.io/hostname"]; }), /labels/],
  ["uses a look-alike prefix", health, node(),
    change((n) => { n.metadata.labels["hkimgen.io.evil/x"] = "1"; }), /labels/],
  ["changes another annotation", health, node(),
    change((n) => { n.metadata.annotations["node.alpha.kubernetes.io/ttl"] = "5"; }), /annotations/],
  ["removes another taint", health, node(), change((n) => { n.spec.taints = []; }), /taints/],
  ["adds another taint", health, node(),
    change((n) => { n.spec.taints.push({ key: "evict", effect: "NoExecute" }); }), /taints/],
  ["cordons the node", health, node(), change((n) => { n.spec.unschedulable = true; }), /cordon/],
  ["adds an owner reference", health, node(),
    change((n) => { n.metadata.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "1" }]; }),
    /owner references/],
  ["adds a finalizer", health, node(), change((n) => { n.metadata.finalizers = ["x/y"]; }), /finalizers/],
  ["another user cordons it", "system:serviceaccount:kube-system:node-controller", node(),
    change((n) => { n.spec.unschedulable = true; }), "not matched"],
];
for (const u of users.slice(1))
  cases.push([`${u} marks a node`, u, node(), marked(), "allowed"]);

let failed = 0;
for (const [name, user, oldNode, newNode, want] of cases) {
  let got;
  try {
    got = verdict(user, oldNode, newNode);
  } catch (e) {
    got = `error: ${e.message}`;
  }
  const ok = want instanceof RegExp ? want.test(got) && got !== "allowed" && got !== "not matched" : got === want;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${got}`);
  failed += !ok;
}
console.log(`${cases.length - failed}/${cases.length} cases as expected`);
process.exit(failed ? 1 : 0);
