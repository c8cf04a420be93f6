// Evaluates the CEL of the node condition's ValidatingAdmissionPolicy
// (templates/admission/validatingadmissionpolicy-node-condition.yaml.mustache) with a CEL
// implementation (@bufbuild/cel) against old/new Node pairs, as the API server would for a
// nodes/status request of the condition's writers: the RdmaFabric condition set, cleared or
// re-posted on a node of the pool passes; another condition type, another status field, a label,
// another team's node, a control-plane node, an excluded node, and (for the link agent) a node
// other than its own are refused; other users' requests do not match. The pool and the writers
// are read from the policy's own variables and match condition.
// Not reproduced: the API server's type check against the Node's OpenAPI schema, cost limits.
// Usage: node vap-node-condition.test.mjs POLICY.yaml...
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { admissionVerdict, policyConstant } from "./policy_eval.mjs";

const clone = (x) => JSON.parse(JSON.stringify(x));

function checkPolicy(file) {
  const policy = parse(readFileSync(file, "utf8"));
  if (policy.kind !== "ValidatingAdmissionPolicy") throw new Error(`${file}: not a ValidatingAdmissionPolicy`);
  if (JSON.stringify(policy.spec.matchConstraints.resourceRules[0].resources) !== '["nodes/status"]')
    throw new Error(`${file}: does not match nodes/status`);

  // The verdict for one request: "not matched", "allowed" or the first failing message.
  const verdict = (userInfo, oldNode, newNode) =>
    admissionVerdict(policy, { userInfo, operation: "UPDATE", subResource: "status" }, oldNode, newNode);
  const data = (name) => policyConstant(policy, file, name);
  const type = data("conditionType");
  const pool = data("poolSelector");
  const exclude = data("excludeNodes");
  const include = data("includeNodes");
  const nodeBound = data("nodeBoundUsers");
  if (type !== "RdmaFabric") throw new Error(`${file}: the condition type is ${type}`);
  if (Object.keys(pool).length === 0) throw new Error(`${file}: the pool selector is empty`);
  const writers = (policy.spec.matchConditions[0].expression.match(/'([^']+)'/g) ?? []).map((s) => s.slice(1, -1));
  if (writers.length === 0) throw new Error("the match condition names no writer");
  const agent = writers.find((u) => nodeBound.includes(u));
  const coordinator = writers.find((u) => !nodeBound.includes(u));

  const host = include.length > 0 ? include[0] : "gpu-1";
  const node = (name = host) => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { ...pool, "kubernetes.io/hostname": name },
      annotations: { "node.alpha.kubernetes.io/ttl": "0" },
    },
    spec: { taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }] },
    status: {
      capacity: { "nvidia.com/gpu": "8" },
      allocatable: { "nvidia.com/gpu": "8" },
      conditions: [
        { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory" },
        { type: "Ready", status: "True", reason: "KubeletReady" },
      ],
    },
  });
  const fabric = (status, reason, message) => ({
    type, status, reason, message,
    lastHeartbeatTime: "2026-11-28T10:00:00Z", lastTransitionTime: "2026-11-28T10:00:00Z",
  });
  const bad = () => fabric("True", "RdmaFabricHasIssues", "links: rail rail0 (mlx5_6 port 1): state DOWN");
  const good = () => fabric("False", "RdmaFabricHasNoIssues", "links: 4 port(s) of 4 rail(s) active");
  const withCondition = (c, n = node()) => { n.status.conditions.push(c); return n; };
  const change = (f, n) => { f(n); return n; };
  const user = (username, on = host) => ({
    username, extra: { "authentication.kubernetes.io/node-name": [on] },
  });
  const otherTeam = () => change((n) => { for (const k of Object.keys(pool)) delete n.metadata.labels[k]; }, node("gpu-other-team"));

  const cases = [];
  for (const [who, u] of [["the link agent", agent], ["the coordinator", coordinator]]) {
    if (!u) continue;
    const me = (on) => user(u, on);
    cases.push(
      [`${who} sets the condition on a pool node`, me(), node(), withCondition(bad()), "allowed"],
      [`${who} clears it`, me(), withCondition(bad()), withCondition(good()), "allowed"],
      [`${who} re-posts it (heartbeat)`, me(), withCondition(good()),
        withCondition({ ...good(), lastHeartbeatTime: "2026-11-28T10:05:00Z" }), "allowed"],
      [`${who} marks it stale`, me(), withCondition(good()),
        withCondition(fabric("Unknown", "RdmaFabricCheckStale", "stale")), "allowed"],
      [`${who} changes the Ready condition`, me(), withCondition(good()),
        change((n) => { n.status.conditions[1].status = "False"; }, withCondition(good())), /only the node condition RdmaFabric/],
      [`${who} adds another condition type`, me(), node(),
        withCondition({ type: "RdmaLink", status: "True", reason: "RdmaLinkHasIssues" }), /only the node condition RdmaFabric/],
      [`${who} removes another condition`, me(), node(),
        change((n) => { n.status.conditions.splice(0, 1); }, node()), /only the node condition RdmaFabric/],
      [`${who} writes the condition with another reason`, me(), node(),
        withCondition(fabric("True", "KernelDeadlock", "x")), /must be one/],
      [`${who} writes the condition twice`, me(), node(),
        withCondition(bad(), withCondition(good())), /must be one/],
      [`${who} raises the node's GPU capacity`, me(), node(),
        change((n) => { n.status.capacity["nvidia.com/gpu"] = "16"; }, withCondition(bad())), /status other than/],
      [`${who} changes allocatable`, me(), node(),
        change((n) => { n.status.allocatable["nvidia.com/gpu"] = "0"; }, node()), /status other than/],
      [`${who} adds an address`, me(), node(),
        change((n) => { n.status.addresses = [{ type: "InternalIP", address: "10.0.0.9" }]; }, node()), /status other than/],
      [`${who} adds a label through status`, me(), node(),
        change((n) => { n.metadata.labels["hkimgen.io/nccl-health"] = "pass"; }, withCondition(good())), /labels/],
      [`${who} changes an annotation through status`, me(), node(),
        change((n) => { n.metadata.annotations["node.alpha.kubernetes.io/ttl"] = "9"; }, node()), /labels, annotations/],
      [`${who} writes another team's node`, me("gpu-other-team"), otherTeam(), withCondition(bad(), otherTeam()), /pool/],
      [`${who} writes a control-plane node`, me("cp-1"),
        change((n) => { n.metadata.labels["node-role.kubernetes.io/control-plane"] = ""; }, node("cp-1")),
        withCondition(bad(), change((n) => { n.metadata.labels["node-role.kubernetes.io/control-plane"] = ""; }, node("cp-1"))),
        /control-plane/],
    );
    for (const name of exclude)
      cases.push([`${who} writes excluded node ${name}`, me(name), node(name), withCondition(bad(), node(name)), /exclude/]);
    if (include.length > 0)
      cases.push([`${who} writes a node outside include_nodes`, me("gpu-not-listed"), node("gpu-not-listed"),
        withCondition(bad(), node("gpu-not-listed")), /include_nodes/]);
  }
  if (agent) {
    cases.push(
      ["the link agent writes another pool node", user(agent, "gpu-elsewhere"), node(), withCondition(bad()), /only the node it runs on/],
      ["the link agent's token names no node", { username: agent }, node(), withCondition(bad()), /only the node it runs on/],
    );
  }
  if (coordinator)
    cases.push(["the coordinator writes any pool node (no node-bound token)", { username: coordinator }, node(),
      withCondition(bad()), "allowed"]);
  cases.push(
    ["the kubelet updates Ready", user("system:node:gpu-1"), node(),
      change((n) => { n.status.conditions[1].status = "False"; }, node()), "not matched"],
    ["another service account writes the condition", user("system:serviceaccount:default:x"), node(),
      withCondition(bad()), "not matched"],
  );

  console.log(`${file}: writers ${JSON.stringify(writers)}, node-bound ${JSON.stringify(nodeBound)}, ` +
    `pool ${JSON.stringify(pool)}, exclude ${JSON.stringify(exclude)}, include ${JSON.stringify(include)}`);
  let failed = 0;
  for (const [name, userInfo, oldNode, newNode, want] of cases) {
    let got;
    try {
      got = verdict(userInfo, clone(oldNode), clone(newNode));
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

let failed = 0;
for (const file of process.argv.slice(2)) failed += checkPolicy(file);
process.exit(failed ? 1 : 0);
