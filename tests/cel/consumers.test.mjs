// The fabric consumers' embedded configs (templates/consumers/), checked against their upstream
// formats and evaluated as their consumers would: NVSentinel's values (the chart's
// kubernetes-object-monitor policy and fault-quarantine rule set) and node-problem-detector's
// custom plugin monitor config, each against its schema in tests/data/upstream-crds/ (SOURCE.md
// says where each comes from); the policy's CEL predicate against Node objects (a pool node with
// RdmaFabric True or Unknown matches; False, no condition, another node do not) and the rule
// set's CEL against health events (ours matches and is not fatal, so NVSentinel's own rule for
// fatal kubernetes-object-monitor events, which cordons, does not), with a CEL implementation
// (@bufbuild/cel). NVSentinel evaluates with cel-go; the expressions use only standard CEL.
// Usage: node consumers.test.mjs SCHEMA_DIR POOL_LABELS_JSON CONFIGMAP.yaml...
import Ajv from "ajv";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { cel, evaluate } from "./policy_eval.mjs";

const [schemaDir, poolJson, ...files] = process.argv.slice(2);
if (!schemaDir || !poolJson || files.length === 0) {
  console.error("usage: node consumers.test.mjs SCHEMA_DIR POOL_LABELS_JSON CONFIGMAP.yaml...");
  process.exit(2);
}
const pool = JSON.parse(poolJson);
const ajv = new Ajv({ allErrors: true, strict: false });
const schema = (name) => ajv.compile(JSON.parse(readFileSync(`${schemaDir}/${name}`, "utf8")));
let failures = 0;
const fail = (file, message) => {
  console.error(`FAIL ${file}: ${message}`);
  failures++;
};
const expect = (file, what, got, want) => {
  if (got !== want) fail(file, `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
};

const node = (name, labels, conditions) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name, ...(labels ? { labels } : {}) },
  status: conditions ? { conditions } : {},
});
const fabric = (status) => ({ type: "RdmaFabric", status, reason: "r", message: "m" });
const ready = { type: "Ready", status: "True" };

function checkNvSentinel(file, values) {
  const validate = schema("nvsentinel-values.schema.json");
  if (!validate(values)) fail(file, `not the chart's values: ${ajv.errorsText(validate.errors)}`);
  const policies = values["kubernetes-object-monitor"]?.policies ?? [];
  const ruleSets = values["fault-quarantine"]?.ruleSets ?? [];
  expect(file, "policies", policies.length, 1);
  expect(file, "rule sets", ruleSets.length, 1);
  const [policy] = policies;
  const [ruleSet] = ruleSets;
  if (!policy || !ruleSet) return;
  const watched = policy.resource;
  expect(file, "the policy watches", `${watched.group}/${watched.version}/${watched.kind}`, "/v1/Node");
  expect(file, "the event is fatal", policy.healthEvent.isFatal, false);
  expect(file, "the event skips the drain", policy.healthEvent.drainOverrides?.skip, true);
  expect(file, "the rule set cordons", ruleSet.cordon.shouldCordon, false);
  expect(file, "the taint's effect", ruleSet.taint?.effect, "NoSchedule");
  const matches = (resource) => evaluate(policy.predicate.expression, { resource: cel(resource) });
  const poolLabels = { ...pool, "kubernetes.io/hostname": "gpu-1" };
  const cases = [
    ["a pool node with RdmaFabric True", node("gpu-1", poolLabels, [ready, fabric("True")]), true],
    ["a pool node with RdmaFabric Unknown (stale)", node("gpu-1", poolLabels, [ready, fabric("Unknown")]), true],
    ["a pool node with RdmaFabric False", node("gpu-1", poolLabels, [ready, fabric("False")]), false],
    ["a pool node without the condition", node("gpu-1", poolLabels, [ready]), false],
    ["a pool node without status.conditions", node("gpu-1", poolLabels, null), false],
    ["another team's node with RdmaFabric True", node("cpu-1", { "kubernetes.io/hostname": "cpu-1" }, [fabric("True")]), false],
    ["a node without labels", node("bare", null, [fabric("True")]), false],
  ];
  for (const [what, resource, want] of cases) expect(file, `the policy on ${what}`, matches(resource), want);
  for (const key of Object.keys(pool)) {
    const other = { ...poolLabels, [key]: `${pool[key]}-other` };
    expect(file, `the policy on a node whose ${key} differs`, matches(node("gpu-2", other, [fabric("True")])), false);
  }
  // The rule set's match against the events kubernetes-object-monitor publishes (checkName is
  // the policy's name, agent its own).
  const event = (fields) => cel({ agent: "kubernetes-object-monitor", checkName: policy.name, isFatal: false, isHealthy: false, ...fields });
  const byEvent = (e) => ruleSet.match.all.filter((r) => r.kind === "HealthEvent").every((r) => evaluate(r.expression, { event: e }) === true);
  expect(file, "the rule set on our event", byEvent(event({})), true);
  expect(file, "the rule set on another policy's event", byEvent(event({ checkName: "node-not-ready" })), false);
  expect(file, "the rule set on another monitor's event", byEvent(event({ agent: "nic-health-monitor" })), false);
  const shippedFatalRule = "event.agent == 'kubernetes-object-monitor' && event.isFatal == true";
  expect(file, "NVSentinel's cordoning rule for fatal object-monitor events on ours", evaluate(shippedFatalRule, { event: event({}) }), false);
  const byNode = (labels) => ruleSet.match.all.filter((r) => r.kind === "Node").every((r) => evaluate(r.expression, { node: cel({ metadata: { labels } }) }) === true);
  expect(file, "the rule set on a managed node", byNode(poolLabels), true);
  expect(file, "the rule set on a node opted out of NVSentinel", byNode({ ...poolLabels, "nvsentinel.dgxc.nvidia.com/managed": "false" }), false);
}

function seconds(duration) {
  const m = /^([0-9]+)s$/.exec(duration ?? "");
  return m ? Number(m[1]) : NaN;
}

function checkNpd(file, config) {
  const validate = schema("npd-custom-plugin-monitor.schema.json");
  if (!validate(config)) fail(file, `not a custom plugin monitor config: ${ajv.errorsText(validate.errors)}`);
  expect(file, "default conditions", config.conditions.length, 1);
  expect(file, "rules", config.rules.length, 1);
  const [condition] = config.conditions;
  const [rule] = config.rules;
  expect(file, "the default condition", condition.type, "RdmaFabric");
  expect(file, "its reason", condition.reason, "RdmaFabricHasNoIssues");
  expect(file, "the rule's type", rule.type, "permanent");
  expect(file, "the rule's condition", rule.condition, "RdmaFabric");
  expect(file, "the rule's reason", rule.reason, "RdmaFabricHasIssues");
  const command = rule.args.slice(rule.args.findIndex((a) => a.startsWith("/")));
  expect(file, "the check", command.slice(1, 3).join(" "), "links --once");
  expect(file, "the check has no API client", command.includes("--service-account-dir"), true);
  // node-problem-detector refuses a rule whose timeout passes the global one (Validate()).
  if (!(seconds(rule.timeout) <= seconds(config.pluginConfig.timeout)))
    fail(file, `the rule's timeout ${rule.timeout} passes the global ${config.pluginConfig.timeout}`);
  if (!(seconds(config.pluginConfig.timeout) < seconds(config.pluginConfig.invoke_interval)))
    fail(file, "the timeout is not below the interval");
}

for (const file of files) {
  const configMap = parse(readFileSync(file, "utf8"));
  if (configMap.kind !== "ConfigMap") {
    fail(file, "not a ConfigMap");
    continue;
  }
  const data = configMap.data ?? {};
  if (data["values.yaml"] !== undefined) checkNvSentinel(file, JSON.parse(data["values.yaml"]));
  else if (data["rdma-fabric.json"] !== undefined) checkNpd(file, JSON.parse(data["rdma-fabric.json"]));
  else fail(file, "holds neither values.yaml nor rdma-fabric.json");
}
if (failures > 0) process.exit(1);
console.log(`ok: ${files.length} consumer config(s)`);
