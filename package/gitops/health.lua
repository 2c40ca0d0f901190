-- Argo CD health check for SCS clusters: the SCSCluster claim or namespaced composite and
-- the legacy XSCSCluster composite (kaas.scs.community). It reads the conditions the
-- composition function and Crossplane write (docs/gitops.md):
--   Degraded     the function refuses to render (Rendered=False, Stalled=True), the backend
--                refused the rendered objects (BackendSynced=False), Crossplane cannot
--                apply them (Synced=False), or the backend reports the cluster failed or
--                degraded
--   Suspended    the cluster is hibernated
--   Healthy      Ready=True
--   Progressing  anything else: being created, updated or deleted, waiting for the backend
local hs = {status = "Progressing", message = "Waiting for the cluster to be rendered"}

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Deleting"
  return hs
end
if obj.status == nil or obj.status.conditions == nil then
  return hs
end

local conditions = {}
for _, c in ipairs(obj.status.conditions) do
  conditions[c.type] = c
end
local function says(c)
  local text = c.type .. "=" .. c.status
  if c.reason ~= nil and c.reason ~= "" then
    text = text .. " (" .. c.reason .. ")"
  end
  if c.message ~= nil and c.message ~= "" then
    text = text .. ": " .. c.message
  end
  return text
end
local function is(name, status)
  return conditions[name] ~= nil and conditions[name].status == status
end

for _, name in ipairs({"Rendered", "BackendSynced", "Synced"}) do
  if is(name, "False") then
    hs.status = "Degraded"
    hs.message = says(conditions[name])
    return hs
  end
end
if is("Stalled", "True") then
  hs.status = "Degraded"
  hs.message = says(conditions["Stalled"])
  return hs
end

local phase = obj.status.phase
if phase == "Failed" or phase == "Degraded" then
  hs.status = "Degraded"
  if conditions["BackendReady"] ~= nil then
    hs.message = says(conditions["BackendReady"])
  else
    hs.message = "Phase " .. phase
  end
  return hs
end
if phase == "Hibernated" then
  hs.status = "Suspended"
  hs.message = "Hibernated"
  return hs
end
if is("Ready", "True") then
  hs.status = "Healthy"
  hs.message = "Ready"
  if phase ~= nil then
    hs.message = "Ready (" .. phase .. ")"
  end
  return hs
end

if conditions["BackendReady"] ~= nil then
  hs.message = says(conditions["BackendReady"])
elseif phase ~= nil then
  hs.message = "Phase " .. phase
end
return hs
