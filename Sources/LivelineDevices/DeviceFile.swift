import Foundation
import LivelineModel

/// The `liveline sandbox --devices FILE` file (docs/devices.md): the simulated
/// iPhones to attach to the sandbox, and optionally the Liveline server their apps talk to.
///
/// ```json
/// {
///   "server": "http://127.0.0.1:8080",
///   "seed": 1,
///   "faults": {"dropShare": 0.1, "reorderWindow": 3, "delayMs": 0},
///   "rules": {"priorityBudget": 12, "frequentPriorityBudget": 36, "startBudget": 10, "maximumActivities": 5,
///             "widgetReloadBudget": 40},
///   "devices": [
///     {"id": "iphone-dennis", "userId": 1, "householdId": 1, "token": "ll_…", "os": "26.0",
///      "liveActivitiesAllowed": true, "frequentUpdatesAllowed": false,
///      "widgets": [{"kind": "shopping", "contextKeys": ["shopping:1:2026-01-05"]}]}
///   ]
/// }
/// ```
public struct DeviceFile: Sendable, Decodable {
    public struct Faults: Sendable, Decodable {
        public var dropShare: Double?
        public var reorderWindow: Int?
        public var delayMs: Int?
    }

    public struct Rules: Sendable, Decodable {
        public var priorityBudget: Int?
        public var frequentPriorityBudget: Int?
        public var startBudget: Int?
        public var maximumActivities: Int?
        public var widgetReloadBudget: Int?
    }

    public struct Device: Sendable, Decodable {
        public var id: String
        public var userId: Int
        public var householdId: Int
        /// The user's bearer token for the server (without it the app does not call the server).
        public var token: String?
        public var os: String?
        public var environment: PushEnvironment?
        public var liveActivitiesAllowed: Bool?
        public var frequentUpdatesAllowed: Bool?
        public var activityTypes: [String]?
        public var widgets: [DeviceWidget]?
    }

    /// The Liveline server the apps talk to (nil: the apps only receive).
    public var server: URL?
    public var seed: UInt64?
    public var faults: Faults?
    public var rules: Rules?
    public var devices: [Device]

    /// Reads and checks the file against `registry`; errors name the file, the field and what was
    /// expected.
    public static func load(_ url: URL, registry: ContractRegistry) throws -> DeviceFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DeviceFileError("cannot read \(url.path): \(error.localizedDescription)")
        }
        let file: DeviceFile
        do {
            file = try JSONDecoder().decode(DeviceFile.self, from: data)
        } catch let error as DecodingError {
            throw DeviceFileError("\(url.path): \(DecodingProblem(error, in: data).description)")
        } catch {
            throw DeviceFileError("\(url.path) is not JSON: \(error.localizedDescription)")
        }
        try file.validate(path: url.path, registry: registry)
        return file
    }

    func validate(path: String, registry: ContractRegistry) throws {
        guard !devices.isEmpty else { throw DeviceFileError("\(path): devices: expected at least one device") }
        var ids = Set<String>()
        for (index, device) in devices.enumerated() {
            let field = "devices[\(index)]"
            guard !device.id.isEmpty, ids.insert(device.id).inserted else {
                throw DeviceFileError("\(path): \(field).id: expected a unique, non-empty device id")
            }
            if let os = device.os, OSVersion(os) == nil {
                throw DeviceFileError("\(path): \(field).os: expected an iOS version like 18.0, not '\(os)'")
            }
            for type in device.activityTypes ?? [] where registry.contract(named: type) == nil {
                throw DeviceFileError(
                    "\(path): \(field).activityTypes: '\(type)' is not a known contract (\(registry.names.joined(separator: ", ")))")
            }
            try validateWidgets(device.widgets ?? [], field: "\(field).widgets", path: path)
            if device.token != nil && server == nil { throw DeviceFileError("\(path): server: needed when a device has a token") }
        }
        if let share = faults?.dropShare, !(0...1).contains(share) { throw DeviceFileError("\(path): faults.dropShare: expected 0 to 1") }
        if let budget = rules?.widgetReloadBudget, budget < 0 {
            throw DeviceFileError("\(path): rules.widgetReloadBudget: expected a number of reloads, 0 or more")
        }
    }

    /// A device's widgets: each a kind of its own and at least one non-empty context key.
    func validateWidgets(_ widgets: [DeviceWidget], field: String, path: String) throws {
        var kinds = Set<String>()
        for (index, widget) in widgets.enumerated() {
            guard !widget.kind.isEmpty, kinds.insert(widget.kind).inserted else {
                throw DeviceFileError("\(path): \(field)[\(index)].kind: expected a non-empty widget kind, one widget per kind")
            }
            guard !widget.contextKeys.isEmpty, widget.contextKeys.allSatisfy({ !$0.isEmpty }) else {
                throw DeviceFileError("\(path): \(field)[\(index)].contextKeys: expected the context keys the widget shows, at least one")
            }
        }
    }

    /// The device configurations.
    public var configurations: [DeviceConfiguration] {
        devices.map { device in
            DeviceConfiguration(
                id: device.id, userID: device.userId, householdID: device.householdId, environment: device.environment ?? .sandbox,
                os: device.os.flatMap(OSVersion.init) ?? OSVersion(18, 0), liveActivitiesAllowed: device.liveActivitiesAllowed ?? true,
                frequentUpdatesAllowed: device.frequentUpdatesAllowed ?? false, activityTypes: device.activityTypes,
                widgets: device.widgets ?? []
            )
        }
    }

    public var deviceRules: DeviceRules {
        var result = DeviceRules()
        if let value = rules?.priorityBudget { result.priorityBudget = value }
        if let value = rules?.frequentPriorityBudget { result.frequentPriorityBudget = value }
        if let value = rules?.startBudget { result.startBudget = value }
        if let value = rules?.maximumActivities { result.maximumActivities = value }
        if let value = rules?.widgetReloadBudget { result.widgetReloadBudget = value }
        return result
    }

    public var deviceFaults: DeviceFaults {
        DeviceFaults(
            seed: seed ?? 1, dropShare: faults?.dropShare ?? 0, reorderWindow: faults?.reorderWindow ?? 0,
            delay: faults?.delayMs.flatMap { $0 > 0 ? .milliseconds($0) : nil }
        )
    }
}

public struct DeviceFileError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
