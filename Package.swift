// swift-tools-version: 6.2
import PackageDescription

// The targets and what each is for: README "Architecture" (one list, kept there).

// Products several targets depend on.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let asyncHTTPClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let nioHPACK: Target.Dependency = .product(name: "NIOHPACK", package: "swift-nio-http2")
let nioEmbedded: Target.Dependency = .product(name: "NIOEmbedded", package: "swift-nio")
let nioHTTP2: Target.Dependency = .product(name: "NIOHTTP2", package: "swift-nio-http2")
let hummingbirdHTTP2: Target.Dependency = .product(name: "HummingbirdHTTP2", package: "hummingbird")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let cryptoExtras: Target.Dependency = .product(name: "_CryptoExtras", package: "swift-crypto")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "frostbox",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "frostbox", targets: ["frostbox"]),
        .executable(name: "mock-open-meteo", targets: ["mock-open-meteo"]),
        .executable(name: "mock-apns", targets: ["mock-apns"]),
        .executable(name: "mock-fcm", targets: ["mock-fcm"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "YAML"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        // The configuration loader's shape checks, and tests reading docs/openapi.yaml.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // MARK: Core (pure)
        .target(
            name: "FrostboxCore",
            // The name-folding table (tools/fold-table/generate.py), compiled in: data, not code.
            resources: [.embedInCode("Resources/name-folding.txt")]
        ),

        // MARK: Adapters
        // Linux calls Swift's Glibc module lacks (I/O priority, sync_file_range, getrandom of many bytes).
        .target(name: "CFrostboxSystem"),
        // What both database adapters share (no database code): storage formats, the health monitor.
        .target(name: "FrostboxStorageFormats", dependencies: ["FrostboxCore", logging]),
        .target(
            name: "FrostboxSQLite",
            dependencies: [
                "FrostboxCore", "FrostboxStorageFormats", "CFrostboxSystem", grdb,
                // The C API, for the bulk place import's hot insert loop (see RawStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"), logging,
            ]
        ),
        .target(
            name: "FrostboxPostgres",
            dependencies: [
                "FrostboxCore", "FrostboxStorageFormats", .product(name: "PostgresNIO", package: "postgres-nio"),
                // Its pool's error type: the circuit breaker's "no connection for a while" is an outage.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"), nioCore, nioPosix, nioSSL, logging,
                // The pool runs as a Service of the application's ServiceGroup.
                serviceLifecycle,
            ]
        ),
        .target(
            name: "FrostboxGeoNames",
            dependencies: ["FrostboxCore", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .target(
            name: "FrostboxOpenMeteo",
            dependencies: ["FrostboxCore", asyncHTTPClient, nioCore, .product(name: "NIOHTTP1", package: "swift-nio"), nioPosix, logging]
        ),
        // The push engine every platform sends through: the frame-level HTTP/2 transport
        // (Transport/) and the delivery policy on top (Delivery/).
        .target(
            name: "FrostboxPushEngine",
            dependencies: [
                "FrostboxCore", nioSSL, nioHTTP2,
                nioHPACK, nioCore, nioPosix, logging,
            ]
        ),
        .target(
            name: "FrostboxAPNs",
            dependencies: [
                "FrostboxCore", "FrostboxPushEngine", crypto, nioSSL, nioHTTP2,
                nioHPACK, nioCore, nioPosix, logging,
            ]
        ),
        .target(
            name: "FrostboxWebPush",
            dependencies: ["FrostboxCore", "FrostboxPushEngine", "CFrostboxSystem", crypto, nioHPACK, nioCore, nioPosix, logging]
        ),
        .target(
            name: "FrostboxFCM",
            dependencies: [
                "FrostboxCore", "FrostboxPushEngine", crypto, nioHPACK,
                // RSA (RS256) for the service account's OAuth2 assertion.
                cryptoExtras, asyncHTTPClient, nioCore, nioPosix, nioSSL, logging,
            ]
        ),
        .target(
            name: "FrostboxHTTP",
            dependencies: [
                "FrostboxCore", hummingbird, .product(name: "HummingbirdCore", package: "hummingbird"),
                httpTypes, nioCore, .product(name: "NIOHTTP1", package: "swift-nio"), logging,
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            // docs/openapi.yaml (symlinked), compiled in so that the binary serves its own API description.
            resources: [
                .embedInCode("openapi.yaml"),
                // The status page (GET /status): plain files, served from the binary.
                .embedInCode("StatusPage/status.html"), .embedInCode("StatusPage/status.css"),
                .embedInCode("StatusPage/status.js"), .embedInCode("StatusPage/favicon.svg"),
                .embedInCode("StatusPage/land.json"),
                // The example web client (GET /web-push): a page and its service worker.
                .embedInCode("WebPushExample/index.html"), .embedInCode("WebPushExample/app.js"), .embedInCode("WebPushExample/sw.js"),
                .embedInCode("WebPushExample/example.css"),
            ]
        ),

        // MARK: Application
        .target(
            name: "FrostboxNotifier",
            dependencies: ["FrostboxCore", logging, .product(name: "Metrics", package: "swift-metrics"), serviceLifecycle]
        ),
        // The GeoNames extract compiled into the binary (tools/bundled-places/generate.py):
        // data, no code; the first `serve` seeds places from it wherever the binary runs.
        .target(
            name: "FrostboxBundledPlaces",
            resources: [.embedInCode("Resources/nordic-cities1000.zip")]
        ),
        // The forecast use case apart from any weather service: cache, batching, quota
        // ledger, request gate and clock over the core's `ForecastFetcher` port.
        .target(
            name: "FrostboxForecasting",
            dependencies: ["FrostboxCore", logging]
        ),
        .target(
            name: "FrostboxPlaceImport",
            // The import use case drives two adapters, one per thread: the GeoNames reader and
            // the SQLite place importer (they never see each other).
            dependencies: ["FrostboxCore", "FrostboxGeoNames", "FrostboxSQLite", "CFrostboxSystem", "FrostboxBundledPlaces", logging, crypto]
        ),
        .target(
            name: "FrostboxApp",
            dependencies: [
                "FrostboxCore", "FrostboxSQLite", "FrostboxPostgres", "FrostboxGeoNames", "FrostboxOpenMeteo", "FrostboxForecasting", "FrostboxAPNs",
                "FrostboxFCM", "FrostboxWebPush", "FrostboxPushEngine", "FrostboxHTTP", "FrostboxNotifier", "FrostboxPlaceImport", "CFrostboxSystem",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                nioCore, .product(name: "CoreMetrics", package: "swift-metrics"), hummingbird, asyncHTTPClient,
                .product(name: "Configuration", package: "swift-configuration"), .product(name: "Yams", package: "Yams"), serviceLifecycle,
                .product(name: "UnixSignals", package: "swift-service-lifecycle"), logging, .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "frostbox",
            dependencies: ["FrostboxApp", "FrostboxPlaceImport", "FrostboxCore", logging, argumentParser]
        ),

        // MARK: Test doubles
        .target(
            name: "FrostboxDoubles",
            dependencies: ["FrostboxCore", logging]
        ),
        // A real PostgreSQL for tests: its own throwaway cluster, started on a free port.
        .target(name: "TestPostgres", path: "tools/TestPostgres"),
        .target(
            name: "MockOpenMeteo",
            dependencies: ["FrostboxCore", hummingbird, httpTypes, nioCore, logging, serviceLifecycle],
            path: "tools/MockOpenMeteo"
        ),
        .executableTarget(
            name: "mock-open-meteo",
            dependencies: ["MockOpenMeteo", logging, argumentParser],
            path: "tools/mock-open-meteo"
        ),
        .executableTarget(
            name: "bench-forecasts",
            dependencies: ["FrostboxCore", "FrostboxOpenMeteo", "FrostboxForecasting", "FrostboxSQLite", "MockOpenMeteo", asyncHTTPClient, logging],
            path: "tools/bench-forecasts"
        ),
        .executableTarget(
            name: "bench-model-runs",
            dependencies: ["FrostboxCore", "FrostboxOpenMeteo", "FrostboxForecasting", "FrostboxSQLite", "MockOpenMeteo", asyncHTTPClient, logging],
            path: "tools/bench-model-runs"
        ),
        .executableTarget(
            name: "bench-ensembles",
            dependencies: ["FrostboxCore", "FrostboxOpenMeteo", "FrostboxForecasting", "FrostboxSQLite", "MockOpenMeteo", asyncHTTPClient, logging],
            path: "tools/bench-ensembles"
        ),
        .target(
            name: "MockAPNs",
            // Plain SwiftNIO HTTP/2 rather than a web framework: the double must act at the
            // frame level (GOAWAY with a chosen last stream id, resets, stream limits, and
            // recording a delivery only once its answer has been written).
            dependencies: [
                crypto, .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"), nioCore, nioPosix,
                nioSSL, nioHTTP2, nioHPACK, logging,
            ],
            path: "tools/MockAPNs"
        ),
        .executableTarget(
            name: "mock-apns",
            dependencies: ["MockAPNs", crypto, logging, argumentParser],
            path: "tools/mock-apns"
        ),

        .target(
            name: "MockFCM",
            // Hummingbird over HTTP/2 + TLS: FCM is a plain request/answer API, so the double acts
            // per request (validation, error bodies, Retry-After, hanging), not per frame.
            dependencies: [
                // The self-signed loopback certificate, made the one way the APNs double makes it.
                "MockAPNs", crypto, cryptoExtras, hummingbird,
                hummingbirdHTTP2, httpTypes, nioCore, nioSSL,
                logging, serviceLifecycle,
            ],
            path: "tools/MockFCM"
        ),
        .target(
            name: "MockWebPush",
            // A browser's push service (RFC 8030) over HTTP/2 + TLS: checks VAPID and the headers,
            // decrypts each body as a browser does, answers chosen faults.
            dependencies: [
                "MockAPNs", "FrostboxCore", crypto, hummingbird, hummingbirdHTTP2,
                httpTypes, nioCore, nioSSL, logging, serviceLifecycle,
            ],
            path: "tools/MockWebPush"
        ),
        .executableTarget(
            name: "mock-fcm",
            dependencies: ["MockFCM", logging, argumentParser],
            path: "tools/mock-fcm"
        ),

        // MARK: Places tools (synthetic GeoNames dump, search latency benchmark)
        .executableTarget(name: "geonames-generator", dependencies: ["FrostboxCore"], path: "tools/geonames-generator"),
        .executableTarget(
            name: "bench-places",
            dependencies: ["FrostboxCore", "FrostboxSQLite", grdb],
            path: "tools/bench-places"
        ),
        // Letters typed until the meant town ranks first: Frostbox against a naive ranking.
        .executableTarget(
            name: "bench-letters",
            dependencies: ["FrostboxCore", "FrostboxSQLite", grdb],
            path: "tools/bench-letters"
        ),

        // MARK: Notifier benchmark (data generator and one timed run)
        .executableTarget(
            name: "bench-notifier",
            dependencies: [
                "FrostboxAPNs", "FrostboxFCM", "FrostboxApp", "FrostboxCore", "FrostboxNotifier", "FrostboxSQLite", "FrostboxPostgres",
                "FrostboxForecasting", "FrostboxOpenMeteo", grdb, logging, asyncHTTPClient, cryptoExtras,
            ],
            path: "tools/bench-notifier"
        ),

        // MARK: Push benchmark (APNs client throughput against mock-apns or the nginx sink)
        .executableTarget(
            name: "bench-push",
            dependencies: ["FrostboxAPNs", "FrostboxCore", logging, nioCore, nioPosix],
            path: "tools/bench-push"
        ),
        // FCM adapter throughput against the same sink (its /token and messages:send).
        .executableTarget(
            name: "bench-fcm",
            dependencies: ["FrostboxFCM", "FrostboxCore", logging, cryptoExtras],
            path: "tools/bench-fcm"
        ),
        // Web Push adapter throughput against the same sink (POST /push/<id>, answered 201).
        .executableTarget(
            name: "bench-webpush", dependencies: ["FrostboxWebPush", "FrostboxPushEngine", "FrostboxCore", crypto, logging, nioCore, nioPosix],
            path: "tools/bench-webpush"),

        // MARK: Tests
        // Building blocks of the planning and notifier tests (a forecast, tokens, places), one copy.
        .target(name: "FrostboxFixtures", dependencies: ["FrostboxCore"], path: "Tests/FrostboxFixtures"),
        .testTarget(name: "FrostboxCoreTests", dependencies: ["FrostboxCore", "FrostboxFixtures"]),
        .testTarget(
            name: "FrostboxSQLiteTests",
            dependencies: ["FrostboxSQLite", "FrostboxStorageFormats", "FrostboxCore", "FrostboxDoubles", "FrostboxGeoNames", grdb]),
        .testTarget(
            name: "FrostboxGeoNamesTests",
            dependencies: ["FrostboxGeoNames", "FrostboxCore", "FrostboxDoubles", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .testTarget(
            name: "FrostboxHTTPTests",
            dependencies: [
                "FrostboxHTTP", "FrostboxCore", "FrostboxDoubles", "FrostboxApp", "FrostboxSQLite", "MockOpenMeteo", "FrostboxGeoNames",
                .product(name: "HummingbirdTesting", package: "hummingbird"), hummingbird, httpTypes,
                nioCore, logging, .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(
            name: "FrostboxAppTests",
            dependencies: [
                "FrostboxApp", "FrostboxHTTP", "FrostboxCore", "FrostboxDoubles", "FrostboxFixtures", "MockOpenMeteo", "FrostboxAPNs",
                "FrostboxPlaceImport", "FrostboxOpenMeteo", "MockFCM", "MockWebPush", "FrostboxWebPush", asyncHTTPClient, crypto, logging,
                serviceLifecycle,
            ]
        ),
        .testTarget(
            name: "FrostboxOpenMeteoTests",
            dependencies: ["FrostboxOpenMeteo", "FrostboxForecasting", "FrostboxCore", "MockOpenMeteo", "FrostboxDoubles", asyncHTTPClient, logging]
        ),
        .testTarget(
            name: "FrostboxAPNsTests",
            dependencies: [
                "FrostboxAPNs", "FrostboxPushEngine", "FrostboxCore", "MockAPNs", "FrostboxDoubles", "FrostboxFixtures", crypto, asyncHTTPClient, nioSSL,
                nioEmbedded, nioCore, nioHTTP2, logging,
            ]
        ),
        .testTarget(
            name: "FrostboxPushEngineTests",
            dependencies: ["FrostboxPushEngine", "FrostboxCore", "FrostboxDoubles", nioEmbedded, nioCore, nioHPACK, nioHTTP2, logging]
        ),
        .testTarget(
            name: "FrostboxWebPushTests",
            dependencies: [
                "FrostboxWebPush", "FrostboxPushEngine", "FrostboxCore", "FrostboxDoubles", "MockWebPush", "MockOpenMeteo", crypto, logging, nioCore,
            ]
        ),
        .testTarget(
            name: "FrostboxFCMTests",
            dependencies: [
                "FrostboxFCM", "FrostboxPushEngine", "MockFCM", "FrostboxCore", "FrostboxDoubles", "FrostboxFixtures",
                cryptoExtras,
                logging,
                asyncHTTPClient, nioSSL, nioCore,
            ]
        ),
        .testTarget(
            name: "FrostboxNotifierTests",
            dependencies: [
                "FrostboxNotifier", "FrostboxCore", "FrostboxDoubles", "FrostboxFixtures", "FrostboxForecasting", "FrostboxApp", logging,
                serviceLifecycle,
            ]
        ),
        .testTarget(
            name: "FrostboxPlaceImportTests",
            dependencies: [
                "FrostboxPlaceImport", "FrostboxSQLite", "FrostboxCore", "FrostboxDoubles", "FrostboxBundledPlaces",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"), logging,
            ]
        ),
        .testTarget(
            name: "FrostboxPostgresTests",
            dependencies: [
                "FrostboxPostgres", "FrostboxCore", "FrostboxDoubles", "FrostboxFixtures", "FrostboxNotifier", "TestPostgres", logging,
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // One suite per port, parameterized by implementation (see ContractSuites.swift).
        .testTarget(
            name: "FrostboxContractTests",
            dependencies: [
                "FrostboxCore", "FrostboxSQLite", "FrostboxDoubles", "FrostboxPostgres", "TestPostgres", "FrostboxGeoNames",
                // The notifier's final write, checked against every store.
                "FrostboxNotifier", grdb,
                // The push pacer's budget in the process, beside PostgreSQL's.
                "FrostboxPushEngine",
            ]
        ),
        .testTarget(
            name: "FrostboxEndToEndTests",
            dependencies: [
                "FrostboxApp", "FrostboxCore", "FrostboxSQLite", "MockOpenMeteo", "MockAPNs", "TestPostgres", "FrostboxPostgres", "FrostboxNotifier",
                "FrostboxAPNs", "FrostboxFCM", "MockFCM", "MockWebPush", "FrostboxWebPush", asyncHTTPClient, crypto, grdb, logging, nioCore,
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
