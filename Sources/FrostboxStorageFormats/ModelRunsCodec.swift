import FrostboxCore

/// The text form of the model runs a cached forecast came from, stored alike by both
/// database adapters: `model:initialised:available` per run (UTC epoch seconds), runs
/// separated by `;`, in model order; the empty text for none.
public enum ModelRunsCodec {
    public static func encode(_ runs: [ModelRun]) -> String {
        runs.sorted { $0.model < $1.model }.map { "\($0.model):\($0.initialisedAt):\($0.availableAt)" }.joined(separator: ";")
    }

    /// The runs, or nil when the text is damaged.
    public static func decode(_ text: String) -> [ModelRun]? {
        var runs: [ModelRun] = []
        for item in text.split(separator: ";") {
            let parts = item.split(separator: ":")
            guard parts.count == 3, let initialised = Int64(parts[1]), let available = Int64(parts[2]) else { return nil }
            runs.append(ModelRun(model: String(parts[0]), initialisedAt: initialised, availableAt: available))
        }
        return runs
    }
}
