-- wrk script: PUT /v1/contexts/<PREFIX>N with a full trip content state, N drawn at random from
-- CONTEXTS keys (PREFIX defaults to trip:bench-; ORDER=cycle: N goes through them in turn), the
-- admin key from the ADMIN_KEY environment variable. Counts non-2xx answers and, among them, 5xx
-- ones.
local contexts = tonumber(os.getenv("CONTEXTS") or "1000")
local prefix = os.getenv("PREFIX") or "trip:bench-"
local key = os.getenv("ADMIN_KEY")
local random = os.getenv("ORDER") ~= "cycle"
counter = 0
failures = 0
server_errors = 0
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  counter = id * 7919
  math.randomseed(id * 7919 + os.time())
end

function request()
  counter = counter + 1
  local body = '{"type":"TripLiveActivityAttributes","attributes":{"tripId":"t","line":"S5","destination":"Flughafen"},' ..
    '"contentState":{"currentStop":"Hauptbahnhof","nextStop":"Messe","nextStopTime":803461320,"remainingTime":240,' ..
    '"delay":' .. (counter % 30) .. ',"occupancy":"low","phase":"inProgress","progress":0.5}}'
  local n = random and math.random(0, contexts - 1) or counter % contexts
  return wrk.format("PUT", "/v1/contexts/" .. prefix .. n,
    {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status ~= 200 and status ~= 201 then failures = failures + 1 end
  if status >= 500 then server_errors = server_errors + 1 end
end

function done(summary, latency, requests)
  local failed, errors = 0, 0
  for _, thread in ipairs(threads) do
    failed = failed + thread:get("failures")
    errors = errors + thread:get("server_errors")
  end
  io.write(string.format("non-2xx: %d\n", failed))
  io.write(string.format("5xx: %d\n", errors))
end
