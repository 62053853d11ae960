package io.rediskit.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.MultiLock;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /transfers?from=a&to=b}: a transfer that must exclude every other operation on both accounts at
 * once, under one multi-key lock of the group {@code account} (locks {@code account:a} and {@code account:b});
 * 200 with each account's fencing token, or 409 with a problem detail when either account stayed busy for
 * 2 seconds. Two transfers in opposite directions never deadlock: the set is taken in one order whatever
 * order the accounts come in.
 */
@RestController
public class TransferController {

	private final LockRegistry locks;

	TransferController(LockRegistry locks) {
		this.locks = locks;
	}

	@PostMapping("/transfers")
	Transfer transfer(@RequestParam String from, @RequestParam String to) {
		MultiLock accounts = this.locks.getMultiLock("account", List.of(from, to));
		try (MultiLock.MultiLease lease = accounts.acquire(Duration.ofSeconds(2))) {
			// The ledger writes would go here, each with its account's token.
			return new Transfer(from, to, Map.of(from, lease.fencingToken("account:" + from), to,
					lease.fencingToken("account:" + to)), accounts.isAtomic());
		}
	}

	/**
	 * The answer.
	 * @param from the account debited
	 * @param to the account credited
	 * @param fencingTokens each account's fencing token
	 * @param atomic whether both were taken by one script
	 */
	record Transfer(String from, String to, Map<String, Long> fencingTokens, boolean atomic) {
	}

}
