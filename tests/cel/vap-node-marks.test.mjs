// Evaluates the CEL of the bundle's ValidatingAdmissionPolicies (the health check's,
// templates/admission/, and the OKE VF DaemonSet's, templates/operators-oke/) with a
// CEL implementation (@bufbuild/cel) against old/new Node pairs, as the API server would for a
// request of the health service account: the marks it writes pass on a node of its pool, anything
// else is denied (another team's node, a control-plane node, an excluded node, another taint or
// effect, a taint without the profile's consent, an unknown hkimgen.io/ key), and other users'
// requests do not match. The pool (selector, include/exclude lists) and the taint consent are
// read from the policy's own variables; the generator's tests check that they are the profile's.
// What this does not reproduce: the API server's type check of the expressions against the Node's
// OpenAPI schema and its cost limits (there the objects are typed; here they are maps, which
// `has()` and `==` treat alike).
// Usage: node vap-node-marks.test.mjs POLICY.yaml...
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { admissionVerdict, policyConstant } from "./policy_eval.mjs";

// The policy's verdict for one request: "not matched", "allowed" or the first failing message.
// `nodeName` is what the API server binds into a pod's service-account token
// (userInfo.extra authentication.kubernetes.io/node-name), absent when null or undefined.
function verdictOf(policy, username, oldNode, newNode, nodeName) {
  const extra = nodeName == null ? {} : { "authentication.kubernetes.io/node-name": [nodeName] };
  return admissionVerdict(policy, { userInfo: { username, extra }, operation: "UPDATE" }, oldNode, newNode);
}

// Runs `cases` ([name, verdict thunk, want]) and prints each; the number that failed.
function report(cases) {
  let failed = 0;
  for (const [name, run, want] of cases) {
    let got;
    try {
      got = run();
    } catch (e) {
      got = `error: ${e.message}`;
    }
    const ok = want instanceof RegExp ? want.test(got) && got !== "allowed" && got !== "not matched" : got === want;
    console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${got.replace(/\s+/g, " ")}`);
    failed += !ok;
  }
  console.log(`${cases.length - failed}/${cases.length} cases as expected`);
  return failed;
}

// The OKE VF DaemonSet's fence (templates/operators-oke/validatingadmissionpolicy-vf-config):
// its service account sets or removes the one label on the node its own pod runs on; anything
// else, another node, or a token without the node's name is denied; other users do not match.
function checkNodeLabelPolicy(file, policy) {
  const label = policyConstant(policy, file, "pendingLabel");
  const agent = (policy.spec.matchConditions[0].expression.match(/'([^']+)'/) ?? [])[1];
  if (!agent) throw new Error(`${file}: the match condition names no service account`);
  const node = (name = "gpu-1") => ({
    apiVersion: "v1", kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, "nvidia.com/gpu.present": "true" },
                annotations: { "node.alpha.kubernetes.io/ttl": "0" } },
    spec: { taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }], providerID: "oci://x" },
  });
  const change = (f, n = node()) => { f(n); return n; };
  const pending = (n = node()) => change((x) => { x.metadata.labels[label] = "true"; }, n);
  const v = (user, oldNode, newNode, nodeName = "gpu-1") => () => verdictOf(policy, user, oldNode, newNode, nodeName);
  console.log(`${file}: label ${label}, account ${agent}`);
  return report([
    ["sets the label on its own node", v(agent, node(), pending()), "allowed"],
    ["removes the label from its own node", v(agent, pending(), node()), "allowed"],
    ["sets the label on a node without labels", v(agent, { metadata: { name: "gpu-1" }, spec: {} },
      { metadata: { name: "gpu-1", labels: { [label]: "true" } }, spec: {} }), "allowed"],
    ["sets the label on another node", v(agent, node("gpu-2"), pending(node("gpu-2"))), /its pod runs on/],
    ["sets the label with a token that names no node", v(agent, node(), pending(), null), /its pod runs on/],
    ["sets the label to another value", v(agent, node(), change((n) => { n.metadata.labels[label] = "false"; })), /label/],
    ["marks the node's health", v(agent, node(), change((n) => { n.metadata.labels["hkimgen.io/nccl-health"] = "fail"; })), /label/],
    ["changes another label", v(agent, node(), change((n) => { n.metadata.labels["nvidia.com/gpu.present"] = "false"; })), /label/],
    ["removes another label", v(agent, node(), change((n) => { delete n.metadata.labels["nvidia.com/gpu.present"]; })), /label/],
    ["adds an annotation", v(agent, node(), change((n) => { n.metadata.annotations["x"] = "1"; })), /annotations/],
    ["removes the annotations", v(agent, node(), change((n) => { delete n.metadata.annotations; })), /annotations/],
    ["removes a taint", v(agent, node(), change((n) => { n.spec.taints = []; })), /spec/],
    ["adds a NoExecute taint", v(agent, node(), change((n) => { n.spec.taints.push({ key: "x", effect: "NoExecute" }); })), /spec/],
    ["cordons the node", v(agent, node(), change((n) => { n.spec.unschedulable = true; })), /spec/],
    ["adds an owner reference", v(agent, node(), change((n) => {
      n.metadata.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "1" }]; })), /owner references/],
    ["adds a finalizer", v(agent, node(), change((n) => { n.metadata.finalizers = ["x/y"]; })), /finalizers/],
    ["another user labels a node", v("system:serviceaccount:kube-system:node-controller", node(),
      change((n) => { n.metadata.labels.role = "x"; })), "not matched"],
  ]);
}

function checkPolicy(file) {
  const policy = parse(readFileSync(file, "utf8"));
  if (policy.kind !== "ValidatingAdmissionPolicy") throw new Error(`${file}: not a ValidatingAdmissionPolicy`);
  if ((policy.spec.variables ?? []).some((v) => v.name === "pendingLabel")) return checkNodeLabelPolicy(file, policy);

  const verdict = (username, oldNode, newNode) => verdictOf(policy, username, oldNode, newNode);

  // The policy's data: expressions of constants only.
  const data = (name) => policyConstant(policy, file, name);
  const markKey = data("markLabel");
  const markAnnotations = data("markAnnotations");
  const pool = data("poolSelector");
  const exclude = data("excludeNodes");
  const include = data("includeNodes");
  const consent = data("taintConsent");
  if (Object.keys(pool).length === 0) throw new Error(`${file}: the pool selector is empty`);

  const users = (policy.spec.matchConditions[0].expression.match(/'([^']+)'/g) ?? []).map((s) => s.slice(1, -1));
  if (users.length === 0) throw new Error("the match condition names no service account");
  const health = users[0];

  const host = include.length > 0 ? include[0] : "gpu-1";
  // A node of the pool as hkim-health finds it (another operator's taint and annotation on it).
  const node = (name = host) => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { ...pool, "kubernetes.io/hostname": name, "nvidia.com/gpu.present": "true" },
      annotations: { "node.alpha.kubernetes.io/ttl": "0" },
    },
    spec: { taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }] },
  });
  const ourTaint = { key: markKey, value: "fail", effect: "NoSchedule" };
  // What MarkPatch writes on a failing node (wrapper/health/node_mark.cc): label, reason, time,
  // since and, with consent, the taint.
  const marked = (n = node(), taint = consent) => {
    n.metadata.labels[markKey] = "fail";
    n.metadata.annotations[`${markKey}-reason`] = "rail mlx5_3: 12 GB/s";
    n.metadata.annotations[`${markKey}-time`] = "2026-11-28T03:17:00Z";
    n.metadata.annotations[`${markKey}-since`] = "2026-11-28T03:17:00Z";
    if (taint) n.spec.taints.push(ourTaint);
    return n;
  };
  const change = (f, n = node()) => { f(n); return n; };
  const otherTeam = () => change((n) => { for (const k of Object.keys(pool)) delete n.metadata.labels[k]; },
    node("gpu-other-team"));
  const controlPlane = (withPool) => change((n) => {
    if (!withPool) for (const k of Object.keys(pool)) delete n.metadata.labels[k];
    n.metadata.labels["node-role.kubernetes.io/control-plane"] = "";
  }, node("cp-1"));

  for (const a of [`${markKey}-reason`, `${markKey}-time`, `${markKey}-since`, `${markKey}-passes`])
    if (!markAnnotations.includes(a)) throw new Error(`${file}: the policy does not allow ${a}`);

  const cases = [
    ["marks a pool node failed (label, reason, time, since, taint with consent)", health, node(), marked(), "allowed"],
    ["releases a node (marks and taint removed)", health, marked(node(), true), node(), "allowed"],
    ["counts a pass while healing", health, marked(),
      change((n) => { n.metadata.annotations[`${markKey}-passes`] = "1"; }, marked()), "allowed"],
    ["marks a pool node pass that had no annotations or taints", health,
      { metadata: { name: host, labels: { ...pool, "kubernetes.io/hostname": host } }, spec: {} },
      { metadata: { name: host, labels: { ...pool, "kubernetes.io/hostname": host, [markKey]: "pass" } }, spec: {} },
      "allowed"],
    ["removes its taint (consent withdrawn or healed)", health, marked(node(), true), marked(node(), false), "allowed"],
    [consent ? "adds the taint with the profile's consent" : "adds the taint without the profile's consent",
      health, marked(node(), false), marked(node(), true), consent ? "allowed" : /taint/],
    ["marks another team's node (no pool selector label)", health, otherTeam(), marked(otherTeam()), /pool/],
    ["marks a node whose pool label has another value", health,
      change((n) => { for (const k of Object.keys(pool)) n.metadata.labels[k] = `${pool[k]}-other`; }),
      marked(change((n) => { for (const k of Object.keys(pool)) n.metadata.labels[k] = `${pool[k]}-other`; })), /pool/],
    ["removes the pool label while marking", health, node(),
      change((n) => { for (const k of Object.keys(pool)) delete n.metadata.labels[k]; }, marked()), /pool/],
    ["marks a control-plane node", health, controlPlane(false), marked(controlPlane(false)), /pool/],
    ["marks a control-plane node that carries the pool label", health, controlPlane(true),
      marked(controlPlane(true)), /control-plane/],
    ["adds a NoExecute taint of its key", health, node(),
      change((n) => { n.spec.taints.push({ ...ourTaint, effect: "NoExecute" }); }), /taint/],
    ["adds a taint of its key with another value", health, node(),
      change((n) => { n.spec.taints.push({ ...ourTaint, value: "maybe" }); }), /taint/],
    ["adds a taint with another hkimgen.io/ key", health, node(),
      change((n) => { n.spec.taints.push({ key: "hkimgen.io/drain", value: "fail", effect: "NoSchedule" }); }), /taint/],
    ["removes another hkimgen.io/ taint", health,
      change((n) => { n.spec.taints.push({ key: "hkimgen.io/drain", effect: "NoSchedule" }); }), node(), /taint/],
    ["adds an unknown hkimgen.io/ label", health, node(),
      change((n) => { n.metadata.labels["hkimgen.io/role"] = "x"; }), /label/],
    ["sets its label to another value", health, node(),
      change((n) => { n.metadata.labels[markKey] = "maybe"; }), /label/],
    ["adds an unknown hkimgen.io/ annotation", health, node(),
      change((n) => { n.metadata.annotations["hkimgen.io/nccl-health-note"] = "x"; }), /annotations/],
    ["adds another label", health, node(), change((n) => { n.metadata.labels["role"] = "x"; }), /label/],
    ["changes another label", health, node(),
      change((n) => { n.metadata.labels["nvidia.com/gpu.present"] = "false"; }), /label/],
    ["removes another label", health, node(),
      change((n) => { delete n.metadata.labels["nvidia.com/gpu.present"]; }), /label/],
    ["uses a look-alike prefix", health, node(),
      change((n) => { n.metadata.labels["hkimgen.io.evil/x"] = "1"; }), /label/],
    ["changes another annotation", health, node(),
      change((n) => { n.metadata.annotations["node.alpha.kubernetes.io/ttl"] = "5"; }), /annotations/],
    ["removes another taint", health, node(), change((n) => { n.spec.taints = []; }), /taint/],
    ["adds another taint", health, node(),
      change((n) => { n.spec.taints.push({ key: "evict", effect: "NoExecute" }); }), /taint/],
    ["cordons the node", health, node(), change((n) => { n.spec.unschedulable = true; }), /cordon/],
    ["adds an owner reference", health, node(),
      change((n) => { n.metadata.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "1" }]; }),
      /owner references/],
    ["adds a finalizer", health, node(), change((n) => { n.metadata.finalizers = ["x/y"]; }), /finalizers/],
    ["another user cordons a node", "system:serviceaccount:kube-system:node-controller", otherTeam(),
      change((n) => { n.spec.unschedulable = true; }, otherTeam()), "not matched"],
  ];
  for (const name of exclude) {
    cases.push([`marks excluded node ${name}`, health, node(name), marked(node(name)), /exclude/]);
    const renamed = change((n) => { n.metadata.labels["kubernetes.io/hostname"] = "elsewhere"; }, node(name));
    cases.push([`marks excluded node ${name} (by name)`, health, renamed,
      marked(change((n) => { n.metadata.labels["kubernetes.io/hostname"] = "elsewhere"; }, node(name))), /exclude/]);
  }
  if (include.length > 0)
    cases.push(["marks a node outside include_nodes", health, node("gpu-not-listed"), marked(node("gpu-not-listed")),
      /include_nodes/]);
  for (const u of users.slice(1)) cases.push([`${u} marks a node`, u, node(), marked(), "allowed"]);

  console.log(`${file}: pool ${JSON.stringify(pool)}, exclude ${JSON.stringify(exclude)}, ` +
    `include ${JSON.stringify(include)}, taint consent ${consent}`);
  return report(cases.map(([name, user, oldNode, newNode, want]) => [name, () => verdict(user, oldNode, newNode), want]));
}

let failed = 0;
for (const file of process.argv.slice(2)) failed += checkPolicy(file);
process.exit(failed ? 1 : 0);
