extension PlannedAlert {
    /// The push for this alert, with the message id derived from its device and event
    /// (`FrostEvent.messageID(for:)`), so that a resend after a crash is the same request.
    public func notification() -> PushNotification {
        notification(messageID: event.messageID(for: token))
    }

    /// The push for this alert with a given message id.
    public func notification(messageID: String) -> PushNotification {
        let text = self.text
        let content = AlertContent(
            title: text.title, body: text.body,
            titleLocKey: titleLocKey, titleLocArgs: nil,
            bodyLocKey: bodyLocKey, bodyLocArgs: locArgs,
            sound: kind == .allClear ? nil : "default",
            group: threadID,
            interruption: interruptionLevel,
            frost: FrostData(
                box: event.box.description, night: event.night.description, level: event.level.description,
                minimumC: minimumC.map { ($0 * 10).rounded() / 10 }, probability: percent))
        return PushNotification(
            token: token, platform: platform, app: app, environment: environment, messageID: messageID,
            collapseID: collapseID,
            priority: kind == .allClear ? .throttled : .immediate,
            expiration: windowEnd, content: content)
    }

    /// The collapse id: one per device, box and night, so an escalation or all-clear
    /// replaces the earlier alert on the lock screen. At most 27 bytes (gateways allow 64).
    public var collapseID: String { "frost-\(event.box.key)-\(event.night.compactNumber)" }

    /// The notification group: one per box.
    public var threadID: String { "frost-box-\(event.box)" }

    /// How strongly the alert may interrupt: time-sensitive from freeze up and whenever it
    /// breaks through quiet hours, passive for the all-clear.
    public var interruptionLevel: InterruptionLevel {
        if timing == .breakThrough { return .timeSensitive }
        return switch (kind, event.level) {
        case (.allClear, _): .passive
        case (_, .freeze), (_, .hardFreeze): .timeSensitive
        default: .active
        }
    }

    /// The chance of frost as a whole percent (alerts by probability only).
    public var percent: Int? { probability.map { Int(($0 * 100).rounded()) } }

    /// The English title and body, in the subscription's unit. An alert by probability says
    /// how likely: "Frost likely tonight: 70 % chance of −1 °C or lower at Home".
    public var text: (title: String, body: String) {
        let places = self.places.joined(separator: ", ")
        if let percent, let thresholdC {
            let threshold = unit.format(celsius: thresholdC)
            switch kind {
            case .allClear:
                return ("All clear", "Frost no longer likely \(whenText) at \(places): \(percent) % chance of \(threshold) or lower")
            case .frost, .escalation:
                let body = "\(levelWord) \(Self.likelihood(percent)) \(whenText): \(percent) % chance of \(threshold) or lower at \(places)"
                return (kind == .escalation && !isFirstSeen ? "Colder than forecast" : levelTitle, body)
            }
        }
        let low = minimumC.map { unit.format(celsius: $0) }
        switch kind {
        case .allClear:
            let body = "Frost no longer expected \(whenText) at \(places)" + (low.map { ": low now \($0)" } ?? "")
            return ("All clear", body)
        case .frost, .escalation:
            var body = "\(levelWord) \(whenText) at \(places)"
            if let low {
                body += ": low \(low)"
                if let coldestAt { body += " around \(coldestAt.clockText)" }
            }
            let title = kind == .escalation && !isFirstSeen ? "Colder than forecast" : levelTitle
            return (title, body)
        }
    }

    /// The body's localisation key, `FROST_<LEVEL>_<WHEN>` or `FROST_ALL_CLEAR_<WHEN>`, with
    /// LEVEL one of RISK, FREEZE, HARD_FREEZE and WHEN one of NIGHT_UNDER_WAY, TONIGHT,
    /// TOMORROW_NIGHT, NIGHT_OF (a weekday or a date: the app names the night date of
    /// `locArgs`); an alert by probability adds `_PROBABILITY` (`FROST_FREEZE_TONIGHT_PROBABILITY`).
    /// Its arguments are always `locArgs`.
    public var bodyLocKey: String {
        let what = kind == .allClear ? "ALL_CLEAR" : levelKey
        return "FROST_\(what)_\(whenKey)" + (percent != nil && thresholdC != nil ? "_PROBABILITY" : "")
    }

    /// The title's localisation key: `FROST_TITLE_<LEVEL>`, `FROST_TITLE_ESCALATION` or `FROST_TITLE_ALL_CLEAR`.
    public var titleLocKey: String {
        switch kind {
        case .frost: "FROST_TITLE_\(levelKey)"
        case .escalation: isFirstSeen ? "FROST_TITLE_\(levelKey)" : "FROST_TITLE_ESCALATION"
        case .allClear: "FROST_TITLE_ALL_CLEAR"
        }
    }

    /// `[places, low with unit, time of the low (HH:MM), night date (YYYY-MM-DD)]`; empty
    /// strings where a value is unknown. An alert by probability adds `[percent (70),
    /// threshold with unit]`.
    public var locArgs: [String] {
        var args = [
            places.joined(separator: ", "),
            minimumC.map { unit.format(celsius: $0) } ?? "",
            coldestAt?.clockText ?? "",
            event.night.description,
        ]
        if let percent, let thresholdC { args += [String(percent), unit.format(celsius: thresholdC)] }
        return args
    }

    /// How a chance reads: `possible` below 60 %, `likely` below 90 %, `almost certain` from 90 %.
    static func likelihood(_ percent: Int) -> String {
        switch percent {
        case ..<60: "possible"
        case ..<90: "likely"
        default: "almost certain"
        }
    }

    private var levelKey: String {
        switch event.level {
        case .none, .frostRisk: "RISK"
        case .freeze: "FREEZE"
        case .hardFreeze: "HARD_FREEZE"
        }
    }

    private var whenKey: String {
        switch relativeNight {
        case .underWay: "NIGHT_UNDER_WAY"
        case .tonight: "TONIGHT"
        case .tomorrowNight: "TOMORROW_NIGHT"
        case .weekday, .later: "NIGHT_OF"
        }
    }

    private var levelWord: String {
        switch event.level {
        case .none, .frostRisk: "Frost risk"
        case .freeze: "Frost"
        case .hardFreeze: "Hard frost"
        }
    }

    private var levelTitle: String {
        switch event.level {
        case .none, .frostRisk: "Frost risk"
        case .freeze: "Frost warning"
        case .hardFreeze: "Hard frost warning"
        }
    }

    private var whenText: String {
        switch relativeNight {
        case .underWay: "in the night now under way"
        case .tonight: "tonight"
        case .tomorrowNight: "tomorrow night"
        case .weekday: "on \(event.night.weekdayName) night"
        case .later: "on the night of \(event.night.day) \(Self.monthNames[event.night.month - 1])"
        }
    }

    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

extension LocalDate {
    /// The English name of the date's day of the week (`Thursday`).
    public var weekdayName: String {
        // 1970-01-01 was a Thursday.
        let index = Int(((daysSinceEpoch + 4) % 7 + 7) % 7)
        return ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][index]
    }
}

extension TemperatureUnit {
    /// A Celsius value in this unit, rounded to a whole degree, with a true minus sign:
    /// `−2 °C`, `28 °F`.
    public func format(celsius: Double) -> String {
        let value = Int(fromCelsius(celsius).rounded())
        let number = value < 0 ? "\u{2212}\(-value)" : "\(value)"
        return "\(number) °\(rawValue)"
    }
}
