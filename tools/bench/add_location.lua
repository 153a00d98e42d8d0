-- wrk script: durable POST /add_location with a distinct device token per request,
-- coordinates spread over many boxes, sent as JSON strings like the existing app does.
local threads = {}
local thread_id = 0

function setup(thread)
  thread_id = thread_id + 1
  thread:set("tid", thread_id)
  table.insert(threads, thread)
end

function init(args)
  counter = 0
  math.randomseed(tid * 7919 + os.time())
end

function request()
  counter = counter + 1
  local token = string.format("%08x%08x%016x", tid, math.random(0, 0x7fffffff), counter)
  local lat = string.format("%.5f", 55 + math.random() * 15)
  local lon = string.format("%.5f", 5 + math.random() * 25)
  local body = string.format(
    '{"token": "%s", "location": {"latitude": "%s", "longitude": "%s", "name": "Place %d", "unit": "C"}}',
    token, lat, lon, counter)
  return wrk.format("POST", "/add_location", {["Content-Type"] = "application/json"}, body)
end
