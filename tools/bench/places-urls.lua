-- wrk script: cycles through /v1/places URLs written by `bench-places --urls FILE`
-- (random 1–5 character prefixes at random populated points). FILE comes from the
-- PLACES_URLS environment variable.
local urls = {}
local path = os.getenv("PLACES_URLS")
for line in io.lines(path) do
  urls[#urls + 1] = line
end
local counter = 0

function request()
  counter = counter + 1
  return wrk.format("GET", urls[(counter % #urls) + 1])
end
