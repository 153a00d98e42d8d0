import AsyncHTTPClient
import Foundation
import FrostboxCore
import Logging
import NIOCore

/// Open-Meteo's model metadata, `GET /data/{domain}/static/meta.json`: when each model's
/// last run was initialised and became available. Open-Meteo does not count these calls
/// against any request limit, so they never go near the quota ledger. One attempt per ask,
/// with its own short deadline and body cap: a failure (a self-hosted server without the
/// endpoint answers 404) only means the boxes depending on the model fall back to the
/// time-based TTL this run.
public struct OpenMeteoMetaClient: ModelRunSource {
    let makeHTTPClient: @Sendable () -> HTTPClient
    public let configuration: OpenMeteoSettings
    let logger: Logger

    public init(
        httpClient: @escaping @Sendable () -> HTTPClient, configuration: OpenMeteoSettings = OpenMeteoSettings(),
        logger: Logger = Logger(label: "frostbox.open-meteo")
    ) {
        self.makeHTTPClient = httpClient
        self.configuration = configuration
        self.logger = logger
    }

    /// The metadata URL of a model named as in `models=` (`icon_d2` → `…/data/dwd_icon_d2/static/meta.json`).
    public func url(for model: String) -> String {
        let domain =
            configuration.path == OpenMeteoSettings.ensemblePath ? OpenMeteoModels.ensembleMetaDomain(of: model) : OpenMeteoModels.metaDomain(of: model)
        var url = configuration.serverRoot + "/data/" + domain + "/static/meta.json"
        if let key = configuration.apiKey, !key.isEmpty { url += "?apikey=" + OpenMeteoClient.formEscape(key) }
        return url
    }

    public func latestRun(of model: String) async -> Result<ModelRun, ModelRunFailure> {
        var request = HTTPClientRequest(url: url(for: model))
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "frostbox")
        let deadline = NIODeadline.now() + .milliseconds(Int64(configuration.metaTimeoutSeconds * 1_000))
        do {
            let response = try await makeHTTPClient().execute(request, deadline: deadline)
            let body = try await response.body.collect(upTo: configuration.maximumMetaBodyBytes)
            switch response.status.code {
            case 200:
                return Self.decode(Data(body.readableBytesView), model: model)
            case 404:
                return .failure(.notPublished)
            default:
                return .failure(.remote(status: Int(response.status.code)))
            }
        } catch is NIOTooManyBytesError {
            return .failure(.invalidResponse("the metadata was larger than \(configuration.maximumMetaBodyBytes) bytes"))
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            return .failure(.timeout)
        } catch {
            return .failure(.transport("\(error)"))
        }
    }

    /// The run a `meta.json` body announces.
    static func decode(_ body: Data, model: String) -> Result<ModelRun, ModelRunFailure> {
        struct Meta: Decodable {
            var initialised: Int64
            var available: Int64

            enum CodingKeys: String, CodingKey {
                case initialised = "last_run_initialisation_time"
                case available = "last_run_availability_time"
            }
        }
        guard let meta = try? JSONDecoder().decode(Meta.self, from: body) else {
            return .failure(.invalidResponse("no last_run_initialisation_time and last_run_availability_time"))
        }
        return .success(ModelRun(model: model, initialisedAt: meta.initialised, availableAt: meta.available))
    }
}

/// Open-Meteo's model names: the `models=` name Frostbox's settings use, the data domain its
/// metadata lives under, and which models `best_match` may draw on where.
public enum OpenMeteoModels {
    /// The `models=` value that lets Open-Meteo choose per place.
    public static let bestMatch = "best_match"

    /// `models=` names whose metadata domain has another name. A name not listed is its own domain.
    static let metaDomains: [String: String] = [
        "icon_d2": "dwd_icon_d2", "icon_eu": "dwd_icon_eu", "icon_global": "dwd_icon",
        "gfs_hrrr": "ncep_hrrr_conus", "gfs_global": "ncep_gfs025", "gfs025": "ncep_gfs025",
        "ecmwf_ifs025": "ecmwf_ifs025", "gem_global": "cmc_gem_gdps", "jma_msm": "jma_msm", "metno_nordic": "metno_nordic_pp",
    ]

    /// The metadata domain of a model named as in `models=`.
    public static func metaDomain(of model: String) -> String { metaDomains[model] ?? model }

    /// Ensemble `models=` names (on the ensemble API) whose metadata domain has another name.
    static let ensembleMetaDomains: [String: String] = [
        "icon_seamless": "dwd_icon_eps", "icon_global": "dwd_icon_eps", "icon_eu": "dwd_icon_eu_eps", "icon_d2": "dwd_icon_d2_eps",
        "ecmwf_ifs025": "ecmwf_ifs025_ensemble", "ecmwf_aifs025": "ecmwf_aifs025_ensemble", "gfs_seamless": "ncep_gefs025",
        "gfs025": "ncep_gefs025", "gfs05": "ncep_gefs05", "gem_global": "cmc_gem_geps",
    ]

    /// The metadata domain of an ensemble model; a mean model (`ecmwf_ifs025_ensemble_mean`)
    /// runs with its members' model.
    public static func ensembleMetaDomain(of model: String) -> String {
        var members = model
        for suffix in ["_ensemble_mean", "_mean"] where members.hasSuffix(suffix) {
            members.removeLast(suffix.count)
            break
        }
        return ensembleMetaDomains[members] ?? members
    }

    /// The default watch list for `best_match`, by region: the model that serves the first
    /// days there (the nights the frost rule looks at) and runs most often: DWD's ICON-D2
    /// over central Europe, ICON-EU over the rest of Europe, NCEP's HRRR over the contiguous
    /// United States, the global ICON elsewhere. Runs of the other models best_match blends
    /// in are picked up with the next run of the watched one (every 1–6 hours).
    public static let bestMatchWatchList =
        "43.2,-3.9,58.1,20.3=icon_d2; 29.5,-23.5,70.5,62.5=icon_eu; 21.1,-134.1,52.6,-60.9=gfs_hrrr; *=icon_global"
}
